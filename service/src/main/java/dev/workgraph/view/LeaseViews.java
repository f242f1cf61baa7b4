package dev.workgraph.view;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.model.LeaseView;
import dev.workgraph.model.Rows;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads leases: active ones from {@code leases}, ended ones from the append-only
 * {@code lease_history}.
 */
@Repository
public class LeaseViews {

	private static final String LEASE_COLUMNS = """
			id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
			""";

	static final String LEASE_BY_ID = "select " + LEASE_COLUMNS + """
			    expires_at > now() as active, null::timestamptz as ended_at, null as outcome, null as reason
			from leases where id = :id
			union all
			select lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
			    false, ended_at, outcome, reason
			from lease_history where lease_id = :id
			""";

	static final String LEASES_OF_ITEM = "select " + LEASE_COLUMNS + """
			    expires_at > now() as active, null::timestamptz as ended_at, null as outcome, null as reason
			from leases where item_id = :itemId
			union all
			select lease_id, item_id, worker_id, epoch, acquired_at, renewed_at, expires_at,
			    false, ended_at, outcome, reason
			from lease_history where item_id = :itemId
			order by epoch
			""";

	private final JdbcClient jdbc;

	public LeaseViews(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	public Optional<LeaseView> find(UUID leaseId) {
		return this.jdbc.sql(LEASE_BY_ID).param("id", leaseId).query(LeaseViews::map).optional();
	}

	public List<LeaseView> ofItem(UUID itemId) {
		return this.jdbc.sql(LEASES_OF_ITEM).param("itemId", itemId).query(LeaseViews::map).list();
	}

	public static LeaseView map(ResultSet rs, int rowNum) throws SQLException {
		return new LeaseView(Rows.uuid(rs, "id"), Rows.uuid(rs, "item_id"), rs.getString("worker_id"),
				rs.getLong("epoch"), Rows.instant(rs, "acquired_at"), Rows.instant(rs, "renewed_at"),
				Rows.instant(rs, "expires_at"), rs.getBoolean("active"), Rows.instant(rs, "ended_at"),
				rs.getString("outcome"), rs.getString("reason"));
	}

}
