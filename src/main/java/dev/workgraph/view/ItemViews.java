package dev.workgraph.view;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

import dev.workgraph.support.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Assembles item views. Each part (dependencies, children, active lease, attention
 * requests) is one query for all requested items together, so a page of 500 items costs
 * five queries, not 2,500.
 */
@Repository
public class ItemViews {

	static final String ITEMS_BY_ID = """
			select * from work_items where id = any(:ids::uuid[])
			""";

	static final String DEPENDENCIES_OF_ITEMS = """
			select d.item_id, w.id, w.title, w.status
			from dependencies d
			join work_items w on w.id = d.depends_on_id
			where d.item_id = any(:ids::uuid[])
			order by d.item_id, d.created_at, w.id
			""";

	static final String CHILDREN_OF_ITEMS = """
			select parent_id, id, title, status, result::text as result
			from work_items
			where parent_id = any(:ids::uuid[])
			order by parent_id, id
			""";

	private final JdbcClient jdbc;

	private final LeaseViews leases;

	private final AttentionRequestViews attentionRequests;

	public ItemViews(JdbcClient jdbc, LeaseViews leases, AttentionRequestViews attentionRequests) {
		this.jdbc = jdbc;
		this.leases = leases;
		this.attentionRequests = attentionRequests;
	}

	public Optional<ItemView> find(UUID id) {
		return load(List.of(id)).stream().findFirst();
	}

	/** The views of the given items that exist, in the order given. */
	public List<ItemView> load(List<UUID> ids) {
		if (ids.isEmpty()) {
			return List.of();
		}
		String idArray = SqlArrays.uuids(ids);
		Map<UUID, ItemRow> rows = new HashMap<>();
		this.jdbc.sql(ITEMS_BY_ID)
			.param("ids", idArray)
			.query(ItemRow::map)
			.list()
			.forEach((row) -> rows.put(row.id, row));
		return assemble(ids.stream().map(rows::get).filter(java.util.Objects::nonNull).toList());
	}

	/**
	 * Views for rows the caller already read (e.g. as the claim statement's RETURNING).
	 */
	public List<ItemView> assemble(List<ItemRow> rows) {
		if (rows.isEmpty()) {
			return List.of();
		}
		List<UUID> ids = rows.stream().map(ItemRow::id).toList();
		String idArray = SqlArrays.uuids(ids);
		Map<UUID, List<DependencyView>> dependencies = grouped(this.jdbc.sql(DEPENDENCIES_OF_ITEMS)
			.param("ids", idArray)
			.query((rs, n) -> Map.entry(Rows.uuid(rs, "item_id"),
					new DependencyView(Rows.uuid(rs, "id"), rs.getString("title"),
							ItemStatus.fromWire(rs.getString("status")))))
			.list());
		Map<UUID, List<ChildView>> children = grouped(this.jdbc.sql(CHILDREN_OF_ITEMS)
			.param("ids", idArray)
			.query((rs, n) -> Map.entry(Rows.uuid(rs, "parent_id"),
					new ChildView(Rows.uuid(rs, "id"), rs.getString("title"),
							ItemStatus.fromWire(rs.getString("status")), rs.getString("result"))))
			.list());
		Map<UUID, LeaseView> activeLeases = this.leases.activeOf(ids);
		Map<UUID, List<AttentionRequestView>> attention = this.attentionRequests.ofItems(ids);
		List<ItemView> views = new ArrayList<>(rows.size());
		for (ItemRow row : rows) {
			views.add(row.toView(dependencies.getOrDefault(row.id, List.of()), children.getOrDefault(row.id, List.of()),
					activeLeases.get(row.id), attention.getOrDefault(row.id, List.of())));
		}
		return views;
	}

	public Page<ItemView> list(ItemFilter filter, int limit, String cursor) {
		StringBuilder sql = new StringBuilder("select * from work_items where true");
		Map<String, Object> params = new LinkedHashMap<>();
		if (filter.status() != null) {
			sql.append(" and status = :status");
			params.put("status", filter.status().wire());
		}
		if (filter.queue() != null) {
			sql.append(" and queue = :queue");
			params.put("queue", filter.queue());
		}
		if (filter.parentId() != null) {
			sql.append(" and parent_id = :parentId");
			params.put("parentId", filter.parentId());
		}
		if (cursor != null) {
			sql.append(" and id > :after");
			params.put("after", Cursors.toId(cursor));
		}
		sql.append(" order by id limit :limit");
		params.put("limit", limit + 1);
		List<ItemRow> rows = this.jdbc.sql(sql.toString()).params(params).query(ItemRow::map).list();
		boolean more = rows.size() > limit;
		List<ItemRow> page = more ? rows.subList(0, limit) : rows;
		String next = more ? Cursors.ofId(page.getLast().id()) : null;
		return new Page<>(assemble(page), next);
	}

	static <K, V> Map<K, List<V>> grouped(Collection<Map.Entry<K, V>> entries) {
		Map<K, List<V>> grouped = new HashMap<>();
		for (Map.Entry<K, V> entry : entries) {
			grouped.computeIfAbsent(entry.getKey(), (key) -> new ArrayList<>()).add(entry.getValue());
		}
		return grouped;
	}

	static <K, V> Map<K, V> indexed(Collection<V> values, Function<V, K> key) {
		Map<K, V> indexed = new HashMap<>();
		values.forEach((value) -> indexed.put(key.apply(value), value));
		return indexed;
	}

	/** Which items to list; every field is optional. */
	public record ItemFilter(ItemStatus status, String queue, UUID parentId) {
	}

	/** A work_items row as read by {@code select *} or {@code returning *}. */
	public record ItemRow(UUID id, String title, String description, int priority, String queue, String metadata,
			UUID parentId, String result, long epoch, ItemStatus status, java.time.Instant createdAt,
			java.time.Instant updatedAt, java.time.Instant readySince, java.time.Instant closedAt, String cancelReason,
			Blockers blockers) {

		public static ItemRow map(ResultSet rs, int rowNum) throws SQLException {
			return new ItemRow(Rows.uuid(rs, "id"), rs.getString("title"), rs.getString("description"),
					rs.getInt("priority"), rs.getString("queue"), rs.getString("metadata"), Rows.uuid(rs, "parent_id"),
					rs.getString("result"), rs.getLong("epoch"), ItemStatus.fromWire(rs.getString("status")),
					Rows.instant(rs, "created_at"), Rows.instant(rs, "updated_at"), Rows.instant(rs, "ready_since"),
					Rows.instant(rs, "closed_at"), rs.getString("cancel_reason"),
					new Blockers(rs.getInt("unmet_dependencies"), rs.getInt("open_children"),
							rs.getInt("open_attention_requests")));
		}

		ItemView toView(List<DependencyView> dependsOn, List<ChildView> children, LeaseView lease,
				List<AttentionRequestView> attentionRequests) {
			return new ItemView(this.id, this.title, this.description, this.priority, this.queue, this.metadata,
					this.parentId, this.result, this.epoch, this.status, this.createdAt, this.updatedAt,
					this.readySince, this.closedAt, this.cancelReason, this.blockers, dependsOn, children, lease,
					attentionRequests);
		}

	}

}
