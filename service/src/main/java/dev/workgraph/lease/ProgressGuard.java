package dev.workgraph.lease;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.sql.SqlArrays;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The no-progress guard (docs/http-api.md, "No-progress guard"): a lease made progress
 * when it wrote a checkpoint, completed, decomposed or asked a question. When the last
 * {@code workgraph.progress.max-leases-without-progress} leases of an item all ended
 * released, failed or expired without progress, the item is held with a blocking system
 * request of kind {@code no_progress} naming those leases and their workers, so that
 * agents stop spending effort on an item they cannot move.
 *
 * <p>
 * Counted from lease history and checkpoints in the transaction that ends the lease,
 * under the item's lock: what counts is what the database recorded under each lease's
 * fence, so a stale worker can neither fake progress nor hide it. A human's answer to any
 * of the system's requests on the item starts the count afresh
 * ({@code work_items.progress_counted_after}).
 */
@Repository
public class ProgressGuard {

	/**
	 * The items among {@code :ids} whose latest {@code :threshold} leases since the count
	 * last started all ended without progress, with those leases (oldest first). A
	 * checkpoint or a worker's question under any of them shows as one with an epoch at
	 * least the oldest's: checkpoints and requests carry their lease's epoch, and epochs
	 * only grow. One probe of each item's newest checkpoint, not a scan of all of them.
	 */
	static final String ITEMS_WITHOUT_PROGRESS = """
			with recent as (
			    select i.id as item_id, h.lease_id, h.worker_id, h.epoch, h.outcome
			    from unnest(:ids::uuid[]) as i(id)
			    join work_items w on w.id = i.id
			    cross join lateral (
			        select h.lease_id, h.worker_id, h.epoch, h.outcome
			        from lease_history h
			        where h.item_id = i.id and h.epoch > w.progress_counted_after
			        order by h.epoch desc
			        limit :threshold
			    ) h
			), streaks as (
			    select item_id, min(epoch) as first_epoch, max(epoch) as last_epoch, count(*) as leases,
			        bool_and(outcome in ('released', 'failed', 'expired')) as none_progressed,
			        json_agg(json_build_object('leaseId', lease_id, 'workerId', worker_id, 'epoch', epoch,
			            'outcome', outcome) order by epoch) as named
			    from recent
			    group by item_id
			)
			select s.item_id, s.last_epoch, (select h.lease_id from lease_history h
			        where h.item_id = s.item_id and h.epoch = s.last_epoch) as last_lease_id,
			    s.named::text as leases
			from streaks s
			where s.leases = :threshold and s.none_progressed
			    and coalesce((select k.epoch from checkpoints k where k.item_id = s.item_id
			        order by k.seq desc limit 1), 0) < s.first_epoch
			    and not exists (select 1 from attention_requests a
			        where a.item_id = s.item_id and a.raised_by = 'worker' and a.epoch >= s.first_epoch)
			""";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final JdbcClient jdbc;

	private final SystemHolds holds;

	private final int threshold;

	ProgressGuard(JdbcClient jdbc, SystemHolds holds, ProgressProperties properties) {
		this.jdbc = jdbc;
		this.holds = holds;
		this.threshold = properties.maxLeasesWithoutProgress();
	}

	/**
	 * Holds each of {@code itemIds} (locked by the caller, whose leases it has just ended
	 * in this transaction) whose latest leases made no progress; returns the blocker
	 * changes for the caller to apply with the leases' endings.
	 */
	public List<BlockerDelta> holdStalled(Collection<UUID> itemIds) {
		if (itemIds.isEmpty()) {
			return List.of();
		}
		List<BlockerDelta> held = new ArrayList<>();
		this.jdbc.sql(ITEMS_WITHOUT_PROGRESS)
			.param("ids", SqlArrays.uuids(itemIds))
			.param("threshold", this.threshold)
			.query((rs, n) -> new Stalled(rs.getObject("item_id", UUID.class),
					rs.getObject("last_lease_id", UUID.class), rs.getLong("last_epoch"), rs.getString("leases")))
			.list()
			.forEach((stalled) -> {
				JsonNode leases = JSON.readTree(stalled.leases());
				this.holds.open(stalled.itemId(), stalled.lastLeaseId(), stalled.lastEpoch(), "no_progress",
						question(leases), context(leases));
				held.add(BlockerDelta.attentionRequests(stalled.itemId(), +1));
			});
		return held;
	}

	private String question(JsonNode leases) {
		StringBuilder named = new StringBuilder();
		for (JsonNode lease : leases) {
			named.append((named.isEmpty()) ? "" : "; ")
				.append("epoch ")
				.append(lease.path("epoch").asLong())
				.append(" by worker ")
				.append(lease.path("workerId").asString())
				.append(" (")
				.append(lease.path("outcome").asString())
				.append(")");
		}
		return "The last " + this.threshold + " leases of this item ended without progress (no checkpoint, "
				+ "completion, decomposition or question): " + named + ". The item is held so that workers stop "
				+ "spending effort on it. Look at its lease history and errors, fix what it needs, then resolve "
				+ "this request to let it run again (the count starts afresh); or cancel the item.";
	}

	private String context(JsonNode leases) {
		ObjectNode context = JSON.createObjectNode();
		context.put("kind", "no_progress");
		context.put("maxLeasesWithoutProgress", this.threshold);
		context.set("leases", leases);
		return context.toString();
	}

	private record Stalled(UUID itemId, UUID lastLeaseId, long lastEpoch, String leases) {
	}

}
