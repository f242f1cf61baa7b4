package dev.workgraph.view;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.model.ItemStatus;
import dev.workgraph.support.SqlArrays;
import dev.workgraph.view.ItemViews.ItemFilter;

/**
 * The statement behind one page of {@code GET /items}: its text and parameters.
 *
 * <p>
 * No index of {@code work_items} holds the status (so claims and completions are
 * heap-only updates, ADR 0015). A status filter reads each asked-for status from where
 * that state lives, in id order: ready items from {@code ready_items}, leased ones from
 * {@code leases}, completed ones through their completed lease in history, blocked and
 * cancelled ones from {@code parked_items}. Each source applies every filter and is
 * ordered and limited to the page on its own, then the sources are merged in id order and
 * the items read by key: without the inner limits the planner sorted a whole source. The
 * status is checked on the row too, so an item is never listed under a status it does not
 * have. A filter by parent or title is selective by itself and checks the status on the
 * row alone.
 */
record ItemListing(String sql, Map<String, Object> params) {

	private static final Set<ItemStatus> ALL = EnumSet.allOf(ItemStatus.class);

	/**
	 * The page of at most {@code limit} items after {@code after} (null: from the start).
	 */
	static ItemListing of(ItemFilter filter, UUID after, int limit) {
		Map<String, Object> params = new LinkedHashMap<>();
		params.put("limit", limit);
		if (after != null) {
			params.put("after", after);
		}
		if (filter.queue() != null) {
			params.put("queue", filter.queue());
		}
		boolean byStatus = filter.statuses() != null && !filter.statuses().containsAll(ALL);
		if (byStatus) {
			params.put("statuses", SqlArrays.texts(filter.statuses().stream().map(ItemStatus::wire).toList()));
		}
		String sql = (byStatus && filter.parentId() == null && filter.titleContains() == null)
				? fromStatusSources(filter, after != null) : fromItems(filter, byStatus, after != null, params);
		return new ItemListing(sql, params);
	}

	private static String fromStatusSources(ItemFilter filter, boolean after) {
		List<String> sources = filter.statuses()
			.stream()
			.sorted()
			.map((status) -> "(" + source(status, filter.queue() != null, after) + ")")
			.toList();
		return "select w.* from (\n" + String.join("\nunion all\n", sources) + "\n) s(item_id)\n"
				+ "join work_items w on w.id = s.item_id\n"
				+ "where w.status = any(:statuses::text[])\norder by s.item_id limit :limit";
	}

	/** The ids of the items of one status, filtered, in id order, at most a page. */
	private static String source(ItemStatus status, boolean queue, boolean after) {
		if (status == ItemStatus.COMPLETED && queue) {
			// The queue's items in id order (the queue never changes, so that index does
			// not hinder heap-only updates), the completed ones taken.
			return "select id from work_items where queue = :queue and status = 'completed'"
					+ (after ? " and id > :after" : "") + " order by id limit :limit";
		}
		String from = switch (status) {
			case READY -> "select item_id from ready_items where true";
			case LEASED -> "select item_id from leases where true";
			case COMPLETED -> "select item_id from lease_history where outcome = 'completed'";
			case BLOCKED, CANCELLED -> "select item_id from parked_items where status = '" + status.wire() + "'";
		};
		return from + (queue ? " and queue = :queue" : "") + (after ? " and item_id > :after" : "")
				+ " order by item_id limit :limit";
	}

	private static String fromItems(ItemFilter filter, boolean byStatus, boolean after, Map<String, Object> params) {
		StringBuilder sql = new StringBuilder("select * from work_items where true");
		if (byStatus) {
			sql.append(" and status = any(:statuses::text[])");
		}
		if (filter.queue() != null) {
			sql.append(" and queue = :queue");
		}
		if (filter.parentId() != null) {
			sql.append(" and parent_id = :parentId");
			params.put("parentId", filter.parentId());
		}
		if (filter.titleContains() != null) {
			// ILIKE '%…%' is answered by the trigram index on the titles' own table
			// (V11),
			// or, for a pattern most titles match, by probing it per item in id order.
			sql.append(" and exists (select 1 from work_item_titles t where t.item_id = work_items.id"
					+ " and t.title ilike :titlePattern)");
			params.put("titlePattern", "%" + likeEscaped(filter.titleContains()) + "%");
		}
		if (after) {
			sql.append(" and id > :after");
		}
		return sql.append(" order by id limit :limit").toString();
	}

	/**
	 * {@code text} as a LIKE pattern that matches it literally (escape character
	 * {@code \}).
	 */
	static String likeEscaped(String text) {
		return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
	}

}
