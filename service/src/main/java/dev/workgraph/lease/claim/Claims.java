package dev.workgraph.lease.claim;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.lease.claim.ClaimAssignment.Candidate;
import dev.workgraph.model.ItemRow;
import dev.workgraph.model.Rows;
import dev.workgraph.sql.GenericPlans;
import dev.workgraph.sql.OneRoundTrip;
import dev.workgraph.sql.SqlArrays;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseRows;
import dev.workgraph.view.LeaseView;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The claim: one statement that picks the best ready item, dequeues it, marks it leased
 * with the next epoch and grants the lease. {@code FOR UPDATE SKIP LOCKED} on the queue
 * row and the item row lets concurrent claims (from any number of service instances) pass
 * each other instead of queueing behind one candidate, and never hand out the same item
 * twice. Both candidate lookups are index scans on {@code ready_items}, which holds only
 * ready items, so the cost does not grow with the item count.
 *
 * <p>
 * Continuity (ADR 0000, decided in docs/adr/0004-continuity-preference.md): besides the
 * best ready item overall, the claim looks up the best ready item for which this worker
 * is the preferred one (its lease ended with a question, and the item became ready within
 * the continuity window). The preferred item wins unless the overall best has a higher
 * priority; the preference never reserves anything.
 */
@Repository
public class Claims {

	/**
	 * The grant, after a claim has chosen its items, given as the CTE
	 * {@code assignment(item_id, ready_row, lease_id, worker_id, lease_seconds)} of
	 * locked items: each is dequeued, marked leased with epoch + 1 and gets a lease of
	 * its own. Answers the item rows, each with its lease's columns prefixed
	 * {@code lease_}.
	 *
	 * <p>
	 * The ready entries are dequeued by tuple id ({@code ready_row}, the {@code ctid} the
	 * claim read when it locked them), so no index of the queue can be chosen for it (the
	 * one other path, a sequential scan, see {@link KeyLookups}); the items are found by
	 * primary key from an array. The queue vacuum sets the statistics of
	 * {@code ready_items} to what is left at that moment, often nothing, and a connection
	 * keeps the generic plan it made then: with one estimated row the planner joined the
	 * whole queue to the assignment, or looked the ids up as the last column of a
	 * claim-order index, i.e. through every entry of that index (a batch claim of 100
	 * took 2 to 8 s with 60,000 ready). The tuple id stays valid until commit: the row is
	 * locked by this transaction, and ready entries are only ever inserted and deleted,
	 * never updated.
	 */
	private static final String GRANT_ASSIGNED_TEMPLATE = """
			dequeued as (
			    delete from ready_items r where r.ctid %s
			    returning r.item_id
			), claimed as (
			    update work_items w
			    set status = 'leased', epoch = w.epoch + 1, ready_since = null, updated_at = now()
			    where w.id = any(array(select d.item_id from dequeued d))
			    returning w.*
			), granted as (
			    -- Acquired when granted, not when the transaction began: now() can precede the
			    -- snapshot that saw the previous lease end, and history would show an overlap.
			    insert into leases (id, item_id, worker_id, epoch, acquired_at, expires_at, queue)
			    select a.lease_id, c.id, a.worker_id, c.epoch, t.granted_at,
			        t.granted_at + make_interval(secs => a.lease_seconds), c.queue
			    from claimed c
			    join assignment a on a.item_id = c.id
			    cross join (select clock_timestamp() as granted_at) t
			    returning *
			)
			select c.*, %s, i.*
			from claimed c
			join granted g on g.item_id = c.id
			-- The claimed item's view in the same round trip: its parts but the lease (the
			-- claim changes none of them; the caller puts in the lease granted here).
			cross join lateral (select
			%s
			    from (select c.id) as i(id)) i
			""";

	/** The grant of one item: its one ready entry, priced as one tuple. */
	private static final String GRANT_ONE = grant("= (select a.ready_row from assignment a)");

	/**
	 * The grant of several items. The planner cannot tell how many ids the array holds
	 * (it assumes ten), so it is run after {@link KeyLookups#ONLY}.
	 */
	private static final String GRANT_MANY = grant("= any(array(select a.ready_row from assignment a))");

	/** The best free ready item preferred for this worker, or the best overall. */
	private static final String CLAIM_TEMPLATE = """
			with %s, preferred as materialized (
			    %s
			), best as materialized (
			    %s
			), picked as (
			    select item_id, ready_row, queue from (select * from preferred union all select * from best) candidate
			    order by priority desc, is_preferred desc, ready_since, item_id
			    limit 1
			), assignment as (
			    select item_id, ready_row, :leaseId::uuid as lease_id, :workerId::text as worker_id,
			        :leaseSeconds::int as lease_seconds
			    from picked p
			    where %s
			), """ + GRANT_ONE;

	public static final String CLAIM_NEXT_READY = CLAIM_TEMPLATE.formatted(QueueGates.GATES,
			ReadyEntries.freeReadyItems("true as is_preferred",
					"r.preferred_worker_id = :workerId and " + ReadyEntries.PREFERENCE_OPEN, "1"),
			ReadyEntries.freeReadyItems("false as is_preferred", "true", "1"), QueueGates.ADMITS_ONE);

	static final String CLAIM_NEXT_READY_IN_QUEUES = CLAIM_TEMPLATE.formatted(QueueGates.GATES,
			ReadyEntries.freeReadyItems("true as is_preferred",
					"r.preferred_worker_id = :workerId and " + ReadyEntries.PREFERENCE_OPEN + " and "
							+ ReadyEntries.IN_QUEUES,
					"1"),
			ReadyEntries.freeReadyItemsOfEachQueue("false as is_preferred", "1"), QueueGates.ADMITS_ONE);

	/**
	 * Whether any item is ready (in the given queues), locked or not: a plain read that
	 * waits for nobody.
	 */
	static final String ANY_READY = """
			with %s
			select exists (select 1 from ready_items r where %s)
			""".formatted(QueueGates.GATES, QueueGates.OPEN);

	static final String ANY_READY_IN_QUEUES = """
			with %s
			select exists (%s)
			""".formatted(QueueGates.GATES, ReadyEntries.anyOfEachQueue());

	/**
	 * Coalesced claims, step 1 of 2 (one transaction): locks the candidates for a batch
	 * of {@code :n} claims with the same queues filter. The best {@code :n} free items of
	 * each queue contain the best {@code :n} overall, and the best {@code :n} items
	 * preferred for each worker of the batch contain every preferred item that any of the
	 * {@code :n} claims could take, so choosing among these rows (see {@link #assign})
	 * gives each claim what it would have got had the batch's claims run one after the
	 * other in arrival order. Rows come back in claim order; rows not assigned are
	 * unlocked at commit.
	 */
	private static final String LOCK_CANDIDATES_TEMPLATE = """
			with %s, best as materialized (
			    %s
			), preferred as materialized (
			    select p.* from unnest(:workerIds::text[]) as x(worker_id)
			    cross join lateral (
			        %s
			    ) p
			)
			select c.item_id, c.ready_row::text, c.priority, c.preferred_worker_id,
			    c.preferred_worker_id is not null
			        and c.ready_since > now() - make_interval(secs => :continuitySeconds) as preference_open,
			    c.queue, c.queue %s as capped
			from (select * from best union select * from preferred) c
			order by c.priority desc, c.ready_since, c.item_id
			""".formatted(QueueGates.GATES, "%s", "%s", QueueGates.CAPPED);

	static final String LOCK_CLAIM_CANDIDATES = LOCK_CANDIDATES_TEMPLATE.formatted(
			ReadyEntries.freeReadyItems("r.preferred_worker_id", "true", ":n"),
			ReadyEntries.freeReadyItems("r.preferred_worker_id",
					"r.preferred_worker_id = x.worker_id and " + ReadyEntries.PREFERENCE_OPEN, ":n"));

	static final String LOCK_CLAIM_CANDIDATES_IN_QUEUES = LOCK_CANDIDATES_TEMPLATE.formatted(
			ReadyEntries.freeReadyItemsOfEachQueue("r.preferred_worker_id", ":n"),
			ReadyEntries.freeReadyItems("r.preferred_worker_id", "r.preferred_worker_id = x.worker_id and "
					+ ReadyEntries.PREFERENCE_OPEN + " and " + ReadyEntries.IN_QUEUES, ":n"));

	/**
	 * Coalesced claims, step 2 of 2: grants the assigned items, locked by step 1 in this
	 * transaction, exactly as {@link #CLAIM_NEXT_READY} grants one.
	 */
	public static final String GRANT_LEASES = """
			with assignment as (
			    select * from unnest(:itemIds::uuid[], :readyRows::tid[], :leaseIds::uuid[], :workerIds::text[],
			        :leaseSeconds::int[]) as a(item_id, ready_row, lease_id, worker_id, lease_seconds)
			), """ + GRANT_MANY;

	private final JdbcClient jdbc;

	private final GenericPlans genericPlans;

	private final OneRoundTrip oneRoundTrip;

	private final QueueGates gates;

	Claims(JdbcClient jdbc, GenericPlans genericPlans, OneRoundTrip oneRoundTrip, QueueGates gates) {
		this.jdbc = jdbc;
		this.genericPlans = genericPlans;
		this.oneRoundTrip = oneRoundTrip;
		this.gates = gates;
	}

	/**
	 * Claims the best ready item, or nothing when no ready item is free (in the given
	 * queues).
	 */
	Optional<Claimed> claimNextReady(UUID leaseId, String workerId, List<String> queues, int leaseSeconds,
			Duration continuityWindow) {
		// Its plan is the same for every worker and queue: see GenericPlans.
		return this.genericPlans
			.query(claimNextReadySql(queues),
					claimNextReadyParams(leaseId, workerId, queues, leaseSeconds, continuityWindow), Claims::claimed)
			.stream()
			.findFirst();
	}

	private static String claimNextReadySql(List<String> queues) {
		return (queues == null) ? CLAIM_NEXT_READY : CLAIM_NEXT_READY_IN_QUEUES;
	}

	private static Map<String, Object> claimNextReadyParams(UUID leaseId, String workerId, List<String> queues,
			int leaseSeconds, Duration continuityWindow) {
		Map<String, Object> params = new HashMap<>();
		params.put("leaseId", leaseId);
		params.put("workerId", workerId);
		params.put("leaseSeconds", leaseSeconds);
		params.put("continuitySeconds", continuityWindow.toMillis() / 1000.0);
		if (queues != null) {
			params.put("queues", SqlArrays.texts(queues));
		}
		return params;
	}

	private static Claimed claimed(ResultSet rs, int n) throws SQLException {
		LeaseView lease = LeaseRows.read(rs, LeaseRows.PREFIX_BESIDE_ITEM);
		return new Claimed(lease, ItemViews.viewWithParts(ItemRow.map(rs, n), rs, lease));
	}

	/**
	 * The asks claimed in the caller's transaction, as a coalesced batch of them would be
	 * (a lone ask by the one-statement claim, kept to its generic plan for the rest of
	 * the transaction, so the caller runs nothing after it).
	 */
	List<Optional<Claimed>> claimHere(List<Ask> asks, List<String> queues, Duration continuityWindow) {
		if (asks.size() > 1) {
			return claimBatch(asks, queues, continuityWindow);
		}
		Ask ask = asks.getFirst();
		// The plan setting in the claim's own round trip: it lasts to the end of the
		// caller's transaction, where nothing but the commit comes after the claim.
		return List.of(
				this.oneRoundTrip
					.queryAfter(GenericPlans.FORCE, claimNextReadySql(queues), Claims::claimed,
							claimNextReadyParams(ask.leaseId(), ask.workerId(), queues, ask.leaseSeconds(),
									continuityWindow))
					.stream()
					.findFirst());
	}

	/**
	 * Claims up to one item for each of the asks, which share the queues filter, in ask
	 * order (see {@link #LOCK_CLAIM_CANDIDATES}); answers per ask, empty when no free
	 * item was left for it. Two round trips, the plan settings (see {@link KeyLookups})
	 * sent with the lock and the grant after them: run it in a transaction of its own.
	 */
	List<Optional<Claimed>> claimBatch(List<Ask> asks, List<String> queues, Duration continuityWindow) {
		Map<String, Object> params = new HashMap<>();
		params.put("n", asks.size());
		params.put("workerIds", SqlArrays.texts(asks.stream().map(Ask::workerId).distinct().toList()));
		params.put("continuitySeconds", continuityWindow.toMillis() / 1000.0);
		if (queues != null) {
			params.put("queues", SqlArrays.texts(queues));
		}
		// The plan settings first in the transaction, in the lock's round trip.
		List<Candidate> candidates = this.oneRoundTrip.queryAfter(KeyLookups.ONLY,
				(queues == null) ? LOCK_CLAIM_CANDIDATES : LOCK_CLAIM_CANDIDATES_IN_QUEUES,
				(rs, n) -> new Candidate(Rows.uuid(rs, "item_id"), rs.getString("ready_row"), rs.getInt("priority"),
						rs.getString("preferred_worker_id"), rs.getBoolean("preference_open"), rs.getString("queue"),
						rs.getBoolean("capped")),
				params);
		List<String> capped = candidates.stream().filter(Candidate::capped).map(Candidate::queue).distinct().toList();
		// Only a batch with items of a capped queue locks it and counts again
		// (QueueGates).
		List<Candidate> assigned = ClaimAssignment.assign(candidates, asks,
				capped.isEmpty() ? Map.of() : this.gates.headroomOfCapped(capped));
		List<UUID> itemIds = new ArrayList<>();
		List<String> readyRows = new ArrayList<>();
		List<Ask> granted = new ArrayList<>();
		for (int i = 0; i < asks.size(); i++) {
			if (assigned.get(i) != null) {
				itemIds.add(assigned.get(i).itemId());
				readyRows.add(assigned.get(i).readyRow());
				granted.add(asks.get(i));
			}
		}
		Map<UUID, Claimed> byLease = new HashMap<>();
		if (!granted.isEmpty()) {
			this.jdbc.sql(GRANT_LEASES)
				.param("itemIds", SqlArrays.uuids(itemIds))
				.param("readyRows", SqlArrays.texts(readyRows))
				.param("leaseIds", SqlArrays.uuids(granted.stream().map(Ask::leaseId).toList()))
				.param("workerIds", SqlArrays.texts(granted.stream().map(Ask::workerId).toList()))
				.param("leaseSeconds", SqlArrays.ints(granted.stream().mapToInt(Ask::leaseSeconds).toArray()))
				.query(Claims::claimed)
				.list()
				.forEach((claimed) -> byLease.put(claimed.lease().id(), claimed));
			if (byLease.size() != granted.size()) {
				// Every assigned item is locked by this transaction: anything else is a
				// bug.
				throw new IllegalStateException(
						"Granted " + byLease.size() + " of " + granted.size() + " locked claim candidates");
			}
		}
		return asks.stream().map((ask) -> Optional.ofNullable(byLease.get(ask.leaseId()))).toList();
	}

	/** The grant, its dequeue matching {@code ctid} by {@code readyRowCondition}. */
	private static String grant(String readyRowCondition) {
		return GRANT_ASSIGNED_TEMPLATE.formatted(readyRowCondition, LeaseRows.active("g", LeaseRows.PREFIX_BESIDE_ITEM),
				ItemViews.PARTS_OF_I);
	}

	boolean anyReady(List<String> queues) {
		if (queues == null) {
			return this.jdbc.sql(ANY_READY).query(Boolean.class).single();
		}
		return this.jdbc.sql(ANY_READY_IN_QUEUES)
			.param("queues", SqlArrays.texts(queues))
			.query(Boolean.class)
			.single();
	}

	/** A granted lease and the claimed item's view (docs/http-api.md, the claim). */
	record Claimed(LeaseView lease, ItemView item) {
	}

	/** One claim request of a batch, with the lease id it will get if it gets an item. */
	record Ask(UUID leaseId, String workerId, int leaseSeconds) {
	}

}
