package dev.workgraph.lease.ending;

import java.util.Map;
import java.util.UUID;

import dev.workgraph.lease.Fencing;
import dev.workgraph.lease.LeaseProperties;
import dev.workgraph.validation.Json;
import dev.workgraph.view.LeaseRows;
import dev.workgraph.view.LeaseView;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.sql.Transactions;
import dev.workgraph.view.CheckpointView;
import dev.workgraph.view.CheckpointViews;

import org.springframework.stereotype.Repository;

/**
 * Writes checkpoints (docs/http-api.md, "Checkpoints"): fenced like every lease mutation,
 * and numbered per item under the item's row lock, which {@link Fencing#lockItemThen}
 * takes first, so two checkpoints of one item never race for a number and none is written
 * after the lease ended (an ending locks the same row). The renewal, when asked, happens
 * in the same transaction: a checkpoint that was refused renews nothing.
 */
@Repository
class Checkpoints {

	/** The largest {@code data}: 1 MiB of compact JSON. */
	static final int MAX_DATA_BYTES = 1_048_576;

	/**
	 * Under the item's lock: the current lease {@code c} (the guard, once more, at the
	 * transaction's time), renewed when {@code :renewSeconds} is given, and the next
	 * checkpoint of its item. The row holds the checkpoint and the lease as it now is.
	 */
	static final String WRITE_IF_CURRENT = """
			with current_lease as (
			    select l.* from %s l where %s
			), renewed as (
			    update leases l
			    set expires_at = now() + make_interval(secs => :renewSeconds), renewed_at = now()
			    from current_lease c
			    where l.id = c.id and :renewSeconds::integer is not null
			    returning l.*
			), k as (
			    insert into checkpoints (item_id, seq, lease_id, epoch, worker_id, data, created_at)
			    select c.item_id,
			        coalesce((select max(p.seq) from checkpoints p where p.item_id = c.item_id), 0) + 1,
			        c.id, c.epoch, c.worker_id, :data::jsonb, now()
			    from current_lease c
			    returning *
			)
			select %s, %s
			from k, (select * from renewed
			         union all
			         select * from current_lease where not exists (select 1 from renewed)) l
			""".formatted(Fencing.leaseByKey(":leaseId"), Fencing.LEASE_IS_CURRENT, CheckpointViews.COLUMNS,
			LeaseRows.active("l", LeaseRows.PREFIX_BESIDE_ITEM));

	private final Transactions transactions;

	private final Fencing fencing;

	private final LeaseProperties properties;

	Checkpoints(Transactions transactions, Fencing fencing, LeaseProperties properties) {
		this.transactions = transactions;
		this.fencing = fencing;
		this.properties = properties;
	}

	/**
	 * Writes the checkpoint under the lease if it is current; throws the rejection,
	 * having written nothing, otherwise.
	 */
	Written write(UUID leaseId, long epoch, CheckpointRequest request) {
		if (request.data() == null || request.data().isNull()) {
			throw new InvalidRequest("data", "must be a JSON object");
		}
		Integer renewSeconds = (request.renewSeconds() != null)
				? this.properties.checkedSeconds(request.renewSeconds(), "renewSeconds") : null;
		String data = Json.objectText(request.data());
		Map<String, Object> params = Fencing.guard(leaseId, epoch);
		params.put("renewSeconds", renewSeconds);
		params.put("data", data);
		// The lock and the write in one round trip, as a completion sends them.
		return this.transactions.inTransaction(() -> this.fencing.lockItemThen(WRITE_IF_CURRENT,
				(rs, n) -> new Written(CheckpointViews.map(rs, n), LeaseRows.read(rs, LeaseRows.PREFIX_BESIDE_ITEM)),
				params, leaseId, epoch));
	}

	/** The answer of {@code POST /leases/{id}/checkpoints}. */
	record Written(CheckpointView checkpoint, LeaseView lease) {
	}

}
