package dev.workgraph.change;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import dev.workgraph.model.Rows;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Reads published changes in seq order. */
@Repository
class ChangeLog {

	static final String HEAD = "select last_seq from change_counter";

	static final String AFTER = """
			select seq, type, item_id, lease_id, epoch, queue, at, data::text as data
			from changes where seq > :after order by seq limit :limit
			""";

	private final JdbcClient jdbc;

	ChangeLog(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** The last seq handed out (0 before the first change). */
	long head() {
		return this.jdbc.sql(HEAD).query(Long.class).single();
	}

	List<Change> after(long seq, int limit) {
		return this.jdbc.sql(AFTER).param("after", seq).param("limit", limit).query(ChangeLog::change).list();
	}

	private static Change change(ResultSet row, int number) throws SQLException {
		long epoch = row.getLong("epoch");
		Long maybeEpoch = row.wasNull() ? null : epoch;
		return new Change(row.getLong("seq"), row.getString("type"), row.getObject("item_id", UUID.class),
				row.getObject("lease_id", UUID.class), maybeEpoch, row.getString("queue"), Rows.instant(row, "at"),
				row.getString("data"));
	}

}
