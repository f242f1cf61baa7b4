package dev.workgraph.lease;

import java.sql.Array;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.Cancellation;
import dev.workgraph.item.LockedItem;
import dev.workgraph.item.Readiness;
import dev.workgraph.support.InvalidRequest;
import dev.workgraph.support.Json;
import dev.workgraph.support.Transactions;
import dev.workgraph.support.Uuid7;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseView;
import dev.workgraph.view.LeaseViews;
import dev.workgraph.view.Rows;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;

/**
 * What a worker does with a lease: claim, renew, complete, release, cancel. Every
 * mutation after the claim is fenced by {@link Fencing}; every multi-step change is one
 * transaction, so a rejected call writes nothing.
 */
@Service
public class LeaseCommands {

	/**
	 * Completes the item under a current lease: ends the lease, records the result, and
	 * returns who is waiting for the item (dependents, once per edge, and the parent) so
	 * they can be unblocked. The item is already locked by the caller, so the dependents
	 * read here are final: adding a dependency on this item waits for that lock and then
	 * sees it completed.
	 */
	static final String COMPLETE_IF_CURRENT = """
			with ended as (
			    delete from leases where id = :leaseId and epoch = :epoch and expires_at > now()
			    returning *
			), recorded as (
			    insert into lease_history (lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
			        ended_at, outcome, reason)
			    select id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at, now(), 'completed', null
			    from ended
			    returning *
			), completed as (
			    update work_items w
			    set status = 'completed', result = :result::jsonb, closed_at = now(), updated_at = now(),
			        consecutive_expirations = 0
			    from recorded r
			    where w.id = r.item_id and w.open_children = 0 and w.unmet_dependencies = 0
			    returning w.id, w.parent_id
			)
			select r.lease_id as id, r.item_id, r.worker_id, r.epoch, r.acquired_at, r.renewed_at, r.expires_at,
			    false as active, r.ended_at, r.outcome, r.reason,
			    c.id is not null as completed, c.parent_id, w.open_children, w.unmet_dependencies,
			    array(select d.item_id from dependencies d where d.depends_on_id = r.item_id) as dependents
			from recorded r
			join work_items w on w.id = r.item_id
			left join completed c on c.id = r.item_id
			""";

	static final String RENEW_IF_CURRENT = """
			update leases
			set expires_at = now() + make_interval(secs => :leaseSeconds), renewed_at = now()
			where id = :leaseId and epoch = :epoch and expires_at > now()
			returning id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at, true as active,
			    null::timestamptz as ended_at, null as outcome, null as reason
			""";

	private final Transactions transactions;

	private final JdbcClient jdbc;

	private final Claims claims;

	private final Fencing fencing;

	private final Readiness readiness;

	private final Cancellation cancellation;

	private final ItemViews items;

	private final LeaseViews leases;

	private final LeaseProperties properties;

	private final ContinuityProperties continuity;

	LeaseCommands(Transactions transactions, JdbcClient jdbc, Claims claims, Fencing fencing, Readiness readiness,
			Cancellation cancellation, ItemViews items, LeaseViews leases, LeaseProperties properties,
			ContinuityProperties continuity) {
		this.transactions = transactions;
		this.jdbc = jdbc;
		this.claims = claims;
		this.fencing = fencing;
		this.readiness = readiness;
		this.cancellation = cancellation;
		this.items = items;
		this.leases = leases;
		this.properties = properties;
		this.continuity = continuity;
	}

	/**
	 * One statement, so one implicit transaction: no BEGIN/COMMIT round trips on the
	 * hottest path.
	 */
	Optional<LeaseAndItem> claim(String workerId, List<String> queues, Integer leaseSeconds) {
		int seconds = leaseSeconds(leaseSeconds);
		return this.claims.claimNextReady(Uuid7.next(), workerId, queues, seconds, this.continuity.continuityWindow())
			.map((claimed) -> new LeaseAndItem(claimed.lease(),
					this.items.assemble(List.of(claimed.item())).getFirst()));
	}

	LeaseView renew(UUID leaseId, long epoch, Integer leaseSeconds) {
		int seconds = leaseSeconds(leaseSeconds);
		return this.transactions.inTransaction(() -> this.jdbc.sql(RENEW_IF_CURRENT)
			.param("leaseId", leaseId)
			.param("epoch", epoch)
			.param("leaseSeconds", seconds)
			.query(LeaseViews::map)
			.optional()
			.orElseThrow(() -> this.fencing.rejection(leaseId, epoch)));
	}

	LeaseAndItem complete(UUID leaseId, long epoch, JsonNode result) {
		LeaseView lease = this.transactions.inTransaction(() -> {
			LockedItem item = this.fencing.lockItem(leaseId, epoch);
			Completion completion = this.jdbc.sql(COMPLETE_IF_CURRENT)
				.param("leaseId", leaseId)
				.param("epoch", epoch)
				.param("result", Json.textOrNull(result))
				.query((rs, n) -> new Completion(LeaseViews.map(rs, n), rs.getBoolean("completed"),
						Rows.uuid(rs, "parent_id"), rs.getInt("open_children"), rs.getInt("unmet_dependencies"),
						uuids(rs.getArray("dependents"))))
				.optional()
				.orElseThrow(() -> this.fencing.rejection(leaseId, epoch));
			if (!completion.completed()) {
				// Thrown inside the transaction: the lease deleted above is restored.
				if (completion.openChildren() > 0) {
					throw new OpenChildrenRemain(item.id(), completion.openChildren());
				}
				throw new UnmetDependenciesRemain(item.id(), completion.unmetDependencies());
			}
			List<BlockerDelta> unblocked = new ArrayList<>();
			completion.dependents().forEach((dependent) -> unblocked.add(BlockerDelta.dependencies(dependent, -1)));
			if (completion.parentId() != null) {
				unblocked.add(BlockerDelta.children(completion.parentId(), -1));
			}
			this.readiness.adjust(unblocked);
			return completion.lease();
		});
		return withItem(lease);
	}

	LeaseAndItem release(UUID leaseId, long epoch, String reason) {
		LeaseView lease = this.transactions.inTransaction(() -> {
			LockedItem item = this.fencing.lockItem(leaseId, epoch);
			LeaseView ended = this.fencing.end(leaseId, epoch, LeaseOutcome.RELEASED, reason);
			this.readiness.settleAfterLeaseEnded(List.of(item.id()));
			return ended;
		});
		return withItem(lease);
	}

	LeaseAndItem cancel(UUID leaseId, long epoch, String reason) {
		LeaseView lease = this.transactions.inTransaction(() -> {
			LockedItem item = this.fencing.lockItem(leaseId, epoch);
			LeaseView ended = this.fencing.end(leaseId, epoch, LeaseOutcome.CANCELLED, reason);
			this.cancellation.cancelSubtree(item.id(), reason);
			return ended;
		});
		return withItem(lease);
	}

	LeaseView lease(UUID leaseId) {
		return this.leases.find(leaseId).orElseThrow(() -> new LeaseNotFound(leaseId));
	}

	LeaseAndItem withItem(LeaseView lease) {
		return new LeaseAndItem(lease, item(lease.itemId()));
	}

	ItemView item(UUID itemId) {
		return this.items.find(itemId).orElseThrow();
	}

	private int leaseSeconds(Integer requested) {
		if (requested == null) {
			return this.properties.defaultSeconds();
		}
		if (requested < 1 || requested > this.properties.maxSeconds()) {
			throw new InvalidRequest("leaseSeconds", "must be between 1 and " + this.properties.maxSeconds());
		}
		return requested;
	}

	private static List<UUID> uuids(Array array) throws SQLException {
		return (array != null) ? List.of((UUID[]) array.getArray()) : List.of();
	}

	/**
	 * A lease with the item it is (or was) for, as the claim and lease-ending endpoints
	 * answer.
	 */
	record LeaseAndItem(LeaseView lease, ItemView item) {
	}

	private record Completion(LeaseView lease, boolean completed, UUID parentId, int openChildren,
			int unmetDependencies, List<UUID> dependents) {
	}

}
