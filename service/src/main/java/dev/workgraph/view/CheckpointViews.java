package dev.workgraph.view;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import dev.workgraph.model.Rows;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Reads an item's checkpoints, newest first. */
@Repository
public class CheckpointViews {

	/** The columns of the checkpoint {@code k}, read by {@link #map}. */
	public static final String COLUMNS = "k.seq, k.item_id, k.lease_id, k.epoch, k.worker_id, k.data, k.created_at";

	/** A page of an item's checkpoints, newest first: the key is the item's sequence. */
	static final String CHECKPOINTS_OF_ITEM = """
			select %s
			from checkpoints k
			where k.item_id = :itemId and k.seq < :beforeSeq
			order by k.seq desc
			limit :limit
			""".formatted(COLUMNS);

	private final JdbcClient jdbc;

	public CheckpointViews(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** The item's checkpoints from before the cursor's, newest first. */
	public Page<CheckpointView> ofItem(UUID itemId, int limit, String cursor) {
		long beforeSeq = (cursor != null) ? Cursors.toSeq(cursor) : Long.MAX_VALUE;
		List<CheckpointView> rows = this.jdbc.sql(CHECKPOINTS_OF_ITEM)
			.param("itemId", itemId)
			.param("beforeSeq", beforeSeq)
			.param("limit", limit + 1)
			.query(CheckpointViews::map)
			.list();
		boolean more = rows.size() > limit;
		List<CheckpointView> page = more ? rows.subList(0, limit) : rows;
		return new Page<>(page, more ? Cursors.ofSeq(page.getLast().seq()) : null);
	}

	/** A checkpoint read with {@link #COLUMNS}. */
	public static CheckpointView map(ResultSet rs, int rowNum) throws SQLException {
		return new CheckpointView(rs.getLong("seq"), Rows.uuid(rs, "item_id"), Rows.uuid(rs, "lease_id"),
				rs.getLong("epoch"), rs.getString("worker_id"), rs.getString("data"), Rows.instant(rs, "created_at"));
	}

}
