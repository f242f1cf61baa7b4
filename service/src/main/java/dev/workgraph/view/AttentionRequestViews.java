package dev.workgraph.view;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.model.AttentionStatus;
import dev.workgraph.model.RaisedBy;
import dev.workgraph.model.Rows;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads attention requests, each with the title of its item, for the inbox and the item
 * view.
 */
@Repository
public class AttentionRequestViews {

	private static final String SELECT_WITH_TITLE = """
			select a.id, a.item_id, w.title as item_title, a.lease_id, a.worker_id, a.epoch, a.raised_by, a.kind,
			    a.blocking, a.question, a.context::text as context, a.status, a.opened_at, a.resolution,
			    a.resolved_by, a.resolved_at, a.timeout_at, a.on_timeout, a.default_resolution, a.escalate_to,
			    a.escalated_at
			from attention_requests a
			join work_items w on w.id = a.item_id
			""";

	static final String ATTENTION_REQUEST_BY_ID = SELECT_WITH_TITLE + "where a.id = :id";

	private final JdbcClient jdbc;

	public AttentionRequestViews(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	public Optional<AttentionRequestView> find(UUID id) {
		return this.jdbc.sql(ATTENTION_REQUEST_BY_ID).param("id", id).query(AttentionRequestViews::map).optional();
	}

	/** The operator's inbox, newest first. */
	public Page<AttentionRequestView> list(AttentionStatus status, UUID itemId, int limit, String cursor) {
		StringBuilder sql = new StringBuilder(SELECT_WITH_TITLE).append("where true");
		Map<String, Object> params = new LinkedHashMap<>();
		if (status != null) {
			sql.append(" and a.status = :status");
			params.put("status", status.wire());
		}
		if (itemId != null) {
			sql.append(" and a.item_id = :itemId");
			params.put("itemId", itemId);
		}
		if (cursor != null) {
			Cursors.TimeAndId after = Cursors.toTimeAndId(cursor);
			sql.append(" and (a.opened_at, a.id) < (:afterTime, :afterId)");
			params.put("afterTime", after.time().atOffset(ZoneOffset.UTC));
			params.put("afterId", after.id());
		}
		sql.append(" order by a.opened_at desc, a.id desc limit :limit");
		params.put("limit", limit + 1);
		List<AttentionRequestView> rows = this.jdbc.sql(sql.toString())
			.params(params)
			.query(AttentionRequestViews::map)
			.list();
		boolean more = rows.size() > limit;
		List<AttentionRequestView> page = more ? rows.subList(0, limit) : rows;
		String next = more ? Cursors.ofTimeAndId(page.getLast().openedAt(), page.getLast().id()) : null;
		return new Page<>(page, next);
	}

	static AttentionRequestView map(ResultSet rs, int rowNum) throws SQLException {
		return new AttentionRequestView(Rows.uuid(rs, "id"), Rows.uuid(rs, "item_id"), rs.getString("item_title"),
				Rows.uuid(rs, "lease_id"), rs.getString("worker_id"), rs.getLong("epoch"),
				RaisedBy.fromWire(rs.getString("raised_by")), rs.getString("kind"), rs.getBoolean("blocking"),
				rs.getString("question"), rs.getString("context"), AttentionStatus.fromWire(rs.getString("status")),
				Rows.instant(rs, "opened_at"), rs.getString("resolution"), rs.getString("resolved_by"),
				Rows.instant(rs, "resolved_at"), Rows.instant(rs, "timeout_at"), deadline(rs),
				Rows.instant(rs, "escalated_at"), rs.getString("escalate_to"));
	}

	private static AttentionRequestView.Deadline deadline(ResultSet rs) throws SQLException {
		String action = rs.getString("on_timeout");
		return (action != null) ? new AttentionRequestView.Deadline(action, rs.getString("default_resolution"),
				rs.getString("escalate_to")) : null;
	}

}
