package dev.workgraph.view;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads leases: active ones from {@code leases}, ended ones from the append-only
 * {@code lease_history}.
 */
@Repository
public class LeaseViews {

	/**
	 * The leases that match the conditions, active ones ({@code l}) and ended ones
	 * ({@code h}) alike.
	 */
	private static final String ACTIVE_AND_ENDED = """
			select %s from leases l where %s
			union all
			select %s from lease_history h where %s
			""";

	static final String LEASE_BY_ID = ACTIVE_AND_ENDED.formatted(LeaseRows.ACTIVE, "l.id = :id", LeaseRows.ENDED,
			"h.lease_id = :id");

	/**
	 * A page of an item's leases, oldest first: epochs of an item are unique and
	 * increasing, so the epoch is the key (every epoch is at least 1).
	 */
	static final String LEASES_OF_ITEM = ACTIVE_AND_ENDED.formatted(LeaseRows.ACTIVE,
			"l.item_id = :itemId and l.epoch > :afterEpoch", LeaseRows.ENDED,
			"h.item_id = :itemId and h.epoch > :afterEpoch") + "order by epoch\nlimit :limit\n";

	/** Whether the worker holds or held a lease on the item. */
	static final String HELD_BY = """
			select exists (select 1 from leases where item_id = :itemId and worker_id = :workerId)
			    or exists (select 1 from lease_history where item_id = :itemId and worker_id = :workerId)
			""";

	private final JdbcClient jdbc;

	public LeaseViews(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	public Optional<LeaseView> find(UUID leaseId) {
		return this.jdbc.sql(LEASE_BY_ID).param("id", leaseId).query(LeaseRows::map).optional();
	}

	/** The item's leases, active and ended, by epoch, from after the cursor's. */
	public Page<LeaseView> ofItem(UUID itemId, int limit, String cursor) {
		long afterEpoch = (cursor != null) ? Cursors.toEpoch(cursor) : 0;
		List<LeaseView> rows = this.jdbc.sql(LEASES_OF_ITEM)
			.param("itemId", itemId)
			.param("afterEpoch", afterEpoch)
			.param("limit", limit + 1)
			.query(LeaseRows::map)
			.list();
		boolean more = rows.size() > limit;
		List<LeaseView> page = more ? rows.subList(0, limit) : rows;
		return new Page<>(page, more ? Cursors.ofEpoch(page.getLast().epoch()) : null);
	}

	/**
	 * Whether the worker holds, or once held, a lease on the item: a worker token may
	 * read those items only.
	 */
	public boolean heldBy(UUID itemId, String workerId) {
		return this.jdbc.sql(HELD_BY).param("itemId", itemId).param("workerId", workerId).query(Boolean.class).single();
	}

}
