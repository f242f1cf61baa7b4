package dev.workgraph.model;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.UUID;

/**
 * A {@code work_items} row as read by {@code select *} or {@code returning *}: the item's
 * own fields, without the parts an item view adds (dependencies, children, lease,
 * attention requests).
 */
public record ItemRow(UUID id, String title, String description, int priority, String queue, String metadata,
		UUID parentId, String result, long epoch, ItemStatus status, Instant createdAt, Instant updatedAt,
		Instant readySince, Instant closedAt, String cancelReason, String createdBy, String cancelledBy,
		Blockers blockers, int attempts, String retry) {

	public static ItemRow map(ResultSet rs, int rowNum) throws SQLException {
		return new ItemRow(Rows.uuid(rs, "id"), rs.getString("title"), rs.getString("description"),
				rs.getInt("priority"), rs.getString("queue"), rs.getString("metadata"), Rows.uuid(rs, "parent_id"),
				rs.getString("result"), rs.getLong("epoch"), ItemStatus.fromWire(rs.getString("status")),
				Rows.instant(rs, "created_at"), Rows.instant(rs, "updated_at"), Rows.instant(rs, "ready_since"),
				Rows.instant(rs, "closed_at"), rs.getString("cancel_reason"), rs.getString("created_by"),
				rs.getString("cancelled_by"),
				new Blockers(rs.getInt("unmet_dependencies"), rs.getInt("open_children"),
						rs.getInt("open_attention_requests"), Rows.instant(rs, "not_before"), rs.getInt("open_waits")),
				rs.getInt("attempts"), rs.getString("retry"));
	}

}
