package dev.workgraph.view;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.model.LeaseRows;
import dev.workgraph.model.LeaseView;

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

	static final String LEASES_OF_ITEM = ACTIVE_AND_ENDED.formatted(LeaseRows.ACTIVE, "l.item_id = :itemId",
			LeaseRows.ENDED, "h.item_id = :itemId") + "order by epoch\n";

	private final JdbcClient jdbc;

	public LeaseViews(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	public Optional<LeaseView> find(UUID leaseId) {
		return this.jdbc.sql(LEASE_BY_ID).param("id", leaseId).query(LeaseRows::map).optional();
	}

	public List<LeaseView> ofItem(UUID itemId) {
		return this.jdbc.sql(LEASES_OF_ITEM).param("itemId", itemId).query(LeaseRows::map).list();
	}

}
