package dev.workgraph.view;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.model.ItemStatus;
import dev.workgraph.sql.SqlArrays;
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
 * have. A filter by parent is selective by itself and checks the status on the row alone.
 *
 * <p>
 * A title search without a parent runs in two bounded steps, since no single plan suits
 * every pattern: walking the titles in id order finds a page of a common word at once but
 * reads every title when the word is rare or absent (seconds at ten million items), and
 * the trigram index finds a rare word at once but every title that has a common one. The
 * planner picks between the two from an estimate of how many titles match, which for a
 * word it has no statistics on is a guess that grows with the table: at nine million
 * items it walked the whole table for a word no title held. So {@link #sql} walks a fixed
 * number of titles after the cursor, and only if that does not fill the page does
 * {@link #rest} ask the trigram index for the matches after them. Within a queue the walk
 * reads that queue's items, and the index, which holds each title's queue beside its
 * trigrams, answers that queue's matches only.
 *
 * <p>
 * Newest first ({@code order=newest}) every statement is the same but mirrored: each
 * source reads its index backwards from the cursor, and the walk's range ends at the
 * cursor instead of starting there.
 *
 * @param sql the page's statement
 * @param params its parameters; a title search's {@link #walkEnd} also takes
 * {@code :listed}, the last item the walk listed ({@link #FIRST_ID} if none), and its
 * {@link #rest} {@code :walkedTo}, what {@code walkEnd} answered
 * @param walkEnd for a title search, the statement for the id after which the rest's
 * matches start: the walk's last title, or the last item the walk listed if titles were
 * added before it meanwhile; no row when the walk read every title after the cursor;
 * otherwise null
 * @param rest for a title search, the matches after the walked titles; otherwise null
 */
record ItemListing(String sql, Map<String, Object> params, String walkEnd, String rest) {

	private static final Set<ItemStatus> ALL = EnumSet.allOf(ItemStatus.class);

	/**
	 * How many titles a search walks in id order before it asks the trigram index: a few
	 * milliseconds of reading, and enough that any word in one title of 200 fills a page
	 * of 50 on the walk alone.
	 */
	static final int WALKED_TITLES = 10_000;

	/** The greatest id: the walk's upper bound, for its plan's sake. */
	static final UUID LAST_ID = new UUID(-1L, -1L);

	/** The least id: where the first page's walk starts. */
	static final UUID FIRST_ID = new UUID(0L, 0L);

	/**
	 * The page of at most {@code limit} items after {@code after} (null: from the start).
	 */
	static ItemListing of(ItemFilter filter, UUID after, int limit) {
		Direction direction = filter.newestFirst() ? Direction.NEWEST : Direction.OLDEST;
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
		if (filter.titleContains() != null && filter.parentId() == null) {
			return titleSearch(filter, byStatus, after != null, params, direction);
		}
		String sql = (byStatus && filter.parentId() == null && filter.titleContains() == null)
				? fromStatusSources(filter, after != null, direction)
				: fromItems(filter, byStatus, after != null, params, direction);
		return new ItemListing(sql, params, null, null);
	}

	private static ItemListing titleSearch(ItemFilter filter, boolean byStatus, boolean after,
			Map<String, Object> params, Direction direction) {
		params.put("titlePattern", titlePattern(filter));
		params.put("walk", WALKED_TITLES);
		// The walk's source: the titles in id order, or within a queue the queue's
		// items, whose rows hold their titles. Bounded on both sides by parameters even
		// from the start, so that a generic plan, priced without their values, still
		// reads the walk as a range of the key (one bound alone it prices at a third of
		// the table, and scanned it all). Within a queue the bounds and the order are row
		// comparisons of (queue, id), which only the queue's index of work_items can
		// take: with queue = :queue and the order by id, a plan could read the table in
		// id order and keep the queue's rows (seen once at a million items: 200,000 rows
		// for a walk of 10,000 in a queue of 50,000). The page is ordered as the walk is,
		// so that the page's limit stops the walk once it has the page.
		String table;
		String columns;
		String key;
		String range;
		String order;
		String pageOrder;
		String restInQueue;
		if (filter.queue() != null) {
			table = "work_items";
			columns = "queue, id as item_id, title";
			key = "id";
			range = direction.range("(queue, id)", "(:queue, :first)", "(:queue, :last)",
					after ? "(:queue, :after)" : null);
			order = "queue" + direction.sql() + ", id" + direction.sql();
			pageOrder = "k.queue" + direction.sql() + ", w.id" + direction.sql();
			restInQueue = "queue = :queue and ";
		}
		else {
			table = "work_item_titles";
			columns = "item_id, title";
			key = "item_id";
			range = direction.range("item_id", ":first", ":last", after ? ":after" : null);
			order = "item_id" + direction.sql();
			pageOrder = "w.id" + direction.sql();
			restInQueue = "";
		}
		params.put("first", FIRST_ID);
		params.put("last", LAST_ID);
		String itemFilters = byStatus ? " and w.status = any(:statuses::text[])" : "";
		// The walk's own limit stops it after its titles; the page's limit stops it
		// sooner when they match.
		String walk = "select w.* from (select " + columns + " from " + table + " where " + range + " order by " + order
				+ " limit :walk) k\njoin work_items w on w.id = k.item_id\n" + "where k.title ilike :titlePattern"
				+ itemFilters + "\norder by " + pageOrder + " limit :limit";
		String walkEnd = "select " + direction.furthest() + "(" + key + ", :listed) from " + table + " where " + range
				+ " order by " + order + " offset :walk - 1 limit 1";
		// offset 0 keeps the page's limit out of the matches' plan: the trigram index
		// finds them all, however few the page still needs. Each match's item is
		// looked up by key (a lateral subquery that offset 0 keeps from being merged
		// into a join): the planner prices the matches from a sample of the titles, and
		// when the sample happens to hold one it expects many and joined them to the
		// whole of work_items.
		String rest = "select w.* from (select item_id from work_item_titles where " + restInQueue
				+ "title ilike :titlePattern" + " and item_id " + direction.beyond() + " :walkedTo offset 0) m\n"
				+ "cross join lateral (select * from work_items w where w.id = m.item_id offset 0) w\nwhere true"
				+ itemFilters + "\norder by w.id" + direction.sql() + " limit :limit";
		return new ItemListing(walk, params, walkEnd, rest);
	}

	private static String titlePattern(ItemFilter filter) {
		return "%" + likeEscaped(filter.titleContains()) + "%";
	}

	private static String fromStatusSources(ItemFilter filter, boolean after, Direction direction) {
		List<String> sources = filter.statuses()
			.stream()
			.sorted()
			.map((status) -> "(" + source(status, filter.queue() != null, after, direction) + ")")
			.toList();
		return "select w.* from (\n" + String.join("\nunion all\n", sources) + "\n) s(item_id)\n"
				+ "join work_items w on w.id = s.item_id\n"
				+ "where w.status = any(:statuses::text[])\norder by s.item_id" + direction.sql() + " limit :limit";
	}

	/** The ids of the items of one status, filtered, in id order, at most a page. */
	private static String source(ItemStatus status, boolean queue, boolean after, Direction direction) {
		if (status == ItemStatus.COMPLETED && queue) {
			// The queue's items in id order (the queue never changes, so that index does
			// not hinder heap-only updates), the completed ones taken.
			return "select id from work_items where queue = :queue and status = 'completed'"
					+ (after ? " and id " + direction.beyond() + " :after" : "") + " order by id" + direction.sql()
					+ " limit :limit";
		}
		String from = switch (status) {
			case READY -> "select item_id from ready_items where true";
			case LEASED -> "select item_id from leases where true";
			case COMPLETED -> "select item_id from lease_history where outcome = 'completed'";
			case BLOCKED, CANCELLED -> "select item_id from parked_items where status = '" + status.wire() + "'";
		};
		return from + (queue ? " and queue = :queue" : "")
				+ (after ? " and item_id " + direction.beyond() + " :after" : "") + " order by item_id"
				+ direction.sql() + " limit :limit";
	}

	private static String fromItems(ItemFilter filter, boolean byStatus, boolean after, Map<String, Object> params,
			Direction direction) {
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
			// With a parent: that parent's children, their titles checked by key.
			sql.append(" and exists (select 1 from work_item_titles t where t.item_id = work_items.id"
					+ " and t.title ilike :titlePattern)");
			params.put("titlePattern", titlePattern(filter));
		}
		if (after) {
			sql.append(" and id ").append(direction.beyond()).append(" :after");
		}
		return sql.append(" order by id").append(direction.sql()).append(" limit :limit").toString();
	}

	/** The order of a listing: by id (creation), oldest or newest first. */
	enum Direction {

		OLDEST, NEWEST;

		/** What follows {@code order by key}. */
		String sql() {
			return (this == OLDEST) ? "" : " desc";
		}

		/** How a key after the cursor compares with it. */
		String beyond() {
			return (this == OLDEST) ? ">" : "<";
		}

		/** Of two keys, the one further along. */
		String furthest() {
			return (this == OLDEST) ? "greatest" : "least";
		}

		/**
		 * Keys from the cursor (or the start) on, bounded on both sides so that a generic
		 * plan reads a range of the key.
		 */
		String range(String key, String first, String last, String after) {
			if (this == OLDEST) {
				return key + ((after != null) ? " > " + after : " >= " + first) + " and " + key + " <= " + last;
			}
			return key + ((after != null) ? " < " + after : " <= " + last) + " and " + key + " >= " + first;
		}

		/** Where a walk starts when it has listed nothing. */
		UUID start() {
			return (this == OLDEST) ? FIRST_ID : LAST_ID;
		}

	}

	/**
	 * {@code text} as a LIKE pattern that matches it literally (escape character
	 * {@code \}).
	 */
	static String likeEscaped(String text) {
		return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
	}

}
