package dev.workgraph.view;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.model.ItemRow;
import dev.workgraph.model.ItemStatus;
import dev.workgraph.model.Rows;
import dev.workgraph.sql.GenericPlans;
import dev.workgraph.sql.SqlArrays;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Assembles item views in one statement each: the item rows and, for every item, its
 * parts (dependencies, children, active lease, attention requests) as JSON arrays built
 * by correlated index probes. One round trip per view (or per page of 500) instead of one
 * per part keeps the claim and complete answers cheap, and the view is read from one
 * snapshot.
 */
@Repository
public class ItemViews {

	/** The dependencies of the item whose id is {@code i.id}, as JSON (view names). */
	private static final String DEPENDS_ON = """
			(select coalesce(json_agg(json_build_object('id', w.id, 'title', w.title, 'status', w.status)
			        order by d.created_at, w.id), '[]')
			    from dependencies d join work_items w on w.id = d.depends_on_id
			    where d.item_id = i.id) as depends_on_json""";

	private static final String CHILDREN_OF = """
			(select coalesce(json_agg(json_build_object('id', c.id, 'title', c.title, 'status', c.status,
			        'result', c.result::text) order by c.id), '[]')
			    from work_items c where c.parent_id = i.id) as children_json""";

	private static final String LEASE_OF = """
			(select %s
			    from leases l where l.item_id = i.id) as lease_json""".formatted(LeaseRows.ACTIVE_AS_JSON);

	private static final String ATTENTION_REQUESTS_OF = """
			(select coalesce(json_agg(json_build_object('id', a.id, 'itemId', a.item_id, 'itemTitle', t.title,
			        'leaseId', a.lease_id, 'workerId', a.worker_id, 'epoch', a.epoch, 'raisedBy', a.raised_by, 'kind', a.kind,
			        'blocking', a.blocking, 'question', a.question, 'context', a.context::text, 'status', a.status,
			        'openedAt', a.opened_at, 'resolution', a.resolution, 'resolvedBy', a.resolved_by,
			        'resolvedAt', a.resolved_at, 'timeoutAt', a.timeout_at,
			        'onTimeout', case when a.on_timeout is not null then json_build_object('action', a.on_timeout,
			            'resolution', a.default_resolution, 'escalateTo', a.escalate_to) end,
			        'escalatedAt', a.escalated_at, 'escalateTo', a.escalate_to) order by a.opened_at, a.id), '[]')
			    from attention_requests a join work_items t on t.id = a.item_id
			    where a.item_id = i.id) as attention_requests_json""";

	/** The newest checkpoint: one probe of the checkpoints' key, from its end. */
	private static final String CHECKPOINT_OF = """
			(select %s
			    from checkpoints k where k.item_id = i.id order by k.seq desc limit 1) as checkpoint_json"""
		.formatted(CheckpointView.AS_JSON);

	/** The item's durable waits, in the order they were registered. */
	private static final String WAITS_OF = """
			(select coalesce(json_agg(%s order by t.created_at, t.id), '[]')
			    from waits t where t.item_id = i.id) as waits_json""".formatted(WaitView.AS_JSON);

	/**
	 * The parts of the item whose id is {@code i.id} (dependencies, children, active
	 * lease, attention requests, latest checkpoint, waits), as JSON columns.
	 */
	private static final String PARTS = String.join(",\n", DEPENDS_ON, CHILDREN_OF, LEASE_OF, ATTENTION_REQUESTS_OF,
			CHECKPOINT_OF, WAITS_OF) + "\n";

	/**
	 * The parts of the item {@code i} but its lease, as columns, for a statement that
	 * grants an item a lease and answers its view in the same round trip (the claim):
	 * join a relation {@code i(id)} and read the row with {@link #viewWithParts}, which
	 * takes the lease the statement wrote. Its snapshot would not show that lease, so the
	 * statement does not look for one (one index probe per claimed item less).
	 */
	public static final String PARTS_OF_I = String.join(",\n", DEPENDS_ON, CHILDREN_OF, ATTENTION_REQUESTS_OF,
			CHECKPOINT_OF, WAITS_OF) + "\n";

	/**
	 * Several items (group-committed lease answers, lists): see {@link SqlArrays#opaque}.
	 */
	static final String ITEM_VIEWS_BY_ID = "select i.*,\n" + PARTS + "from work_items i where i.id = any("
			+ SqlArrays.opaque("ids", "uuid") + ")";

	static final String PARTS_OF_ITEMS = "select i.id,\n" + PARTS + "from unnest(" + SqlArrays.opaque("ids", "uuid")
			+ ") as i(id)";

	/*
	 * One item (a lone lease answer, GET /items/{id}): a statement of its own, so that no
	 * plan is made for an array of one. Its generic plan is still priced within a few
	 * percent of a custom one, and under load the statistics of the queue tables tipped
	 * it onto custom plans: load() runs it through GenericPlans.
	 */
	static final String ITEM_VIEW_BY_ID = "select i.*,\n" + PARTS + "from work_items i where i.id = :id";

	static final String DEPENDENTS = """
			select w.id, w.title, w.status
			from dependencies d join work_items w on w.id = d.item_id
			where d.depends_on_id = :id and (:after::uuid is null or d.item_id > :after::uuid)
			order by d.item_id
			limit :limit
			""";

	static final String PARTS_OF_ITEM = "select i.id,\n" + PARTS + "from (select :id::uuid as id) i";

	private static final String EMPTY = "[]";

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final TypeReference<List<DependencyView>> DEPENDENCIES = new TypeReference<>() {
	};

	private static final TypeReference<List<ChildView>> CHILDREN = new TypeReference<>() {
	};

	private static final TypeReference<List<AttentionRequestView>> ATTENTION_REQUESTS = new TypeReference<>() {
	};

	private static final TypeReference<List<WaitView>> WAITS = new TypeReference<>() {
	};

	private final JdbcClient jdbc;

	private final GenericPlans genericPlans;

	public ItemViews(JdbcClient jdbc, GenericPlans genericPlans) {
		this.jdbc = jdbc;
		this.genericPlans = genericPlans;
	}

	public Optional<ItemView> find(UUID id) {
		return load(List.of(id)).stream().findFirst();
	}

	/** The views of the given items that exist, in the order given. */
	public List<ItemView> load(List<UUID> ids) {
		if (ids.isEmpty()) {
			return List.of();
		}
		Map<UUID, ItemView> found = new HashMap<>();
		// One item (GET /items/{id}, a lone release): its own statement, see
		// GenericPlans.
		boolean one = ids.size() == 1;
		this.genericPlans
			.query(one ? ITEM_VIEW_BY_ID : ITEM_VIEWS_BY_ID,
					one ? Map.of("id", ids.getFirst()) : Map.of("ids", SqlArrays.uuids(ids)),
					(rs, n) -> view(ItemRow.map(rs, n), Parts.map(rs)))
			.forEach((view) -> found.put(view.id(), view));
		return ids.stream().map(found::get).filter(Objects::nonNull).toList();
	}

	/**
	 * Views for rows the caller already read (e.g. as the claim statement's RETURNING).
	 */
	public List<ItemView> assemble(List<ItemRow> rows) {
		if (rows.isEmpty()) {
			return List.of();
		}
		Map<UUID, Parts> parts = new HashMap<>();
		JdbcClient.StatementSpec partsOf = (rows.size() == 1)
				? this.jdbc.sql(PARTS_OF_ITEM).param("id", rows.getFirst().id())
				: this.jdbc.sql(PARTS_OF_ITEMS).param("ids", SqlArrays.uuids(rows.stream().map(ItemRow::id).toList()));
		partsOf.query((rs, n) -> Map.entry(Rows.uuid(rs, "id"), Parts.map(rs)))
			.list()
			.forEach((entry) -> parts.put(entry.getKey(), entry.getValue()));
		return rows.stream().map((row) -> view(row, parts.get(row.id()))).toList();
	}

	/**
	 * The view of a row read together with {@link #PARTS_OF_I}, with the given active
	 * lease.
	 */
	public static ItemView viewWithParts(ItemRow row, ResultSet rs, LeaseView lease) throws SQLException {
		return view(row, Parts.map(rs, lease));
	}

	public Page<ItemView> list(ItemFilter filter, int limit, String cursor) {
		ItemListing listing = ItemListing.of(filter, (cursor != null) ? Cursors.toId(cursor) : null, limit + 1);
		Map<String, Object> params = new HashMap<>(listing.params());
		List<ItemRow> rows = new ArrayList<>(this.jdbc.sql(listing.sql()).params(params).query(ItemRow::map).list());
		if (listing.rest() != null && rows.size() <= limit) {
			params.put("listed", rows.isEmpty()
					? (filter.newestFirst() ? ItemListing.Direction.NEWEST : ItemListing.Direction.OLDEST).start()
					: rows.getLast().id());
			Optional<UUID> walkedTo = this.jdbc.sql(listing.walkEnd()).params(params).query(UUID.class).optional();
			if (walkedTo.isPresent()) {
				params.put("walkedTo", walkedTo.get());
				params.put("limit", limit + 1 - rows.size());
				rows.addAll(this.jdbc.sql(listing.rest()).params(params).query(ItemRow::map).list());
			}
		}
		boolean more = rows.size() > limit;
		List<ItemRow> page = more ? rows.subList(0, limit) : rows;
		String next = more ? Cursors.ofId(page.getLast().id()) : null;
		return new Page<>(assemble(page), next);
	}

	/**
	 * The items that depend on this one, as {@code {id, title, status}}, ordered by id: a
	 * page at a time, since an item may have any number of dependents.
	 */
	public Page<DependencyView> dependents(UUID id, int limit, String cursor) {
		Map<String, Object> params = new LinkedHashMap<>();
		params.put("id", id);
		params.put("after", (cursor != null) ? Cursors.toId(cursor) : null);
		params.put("limit", limit + 1);
		List<DependencyView> rows = this.jdbc.sql(DEPENDENTS)
			.params(params)
			.query((rs, n) -> new DependencyView(Rows.uuid(rs, "id"), rs.getString("title"),
					ItemStatus.fromWire(rs.getString("status"))))
			.list();
		boolean more = rows.size() > limit;
		List<DependencyView> page = more ? rows.subList(0, limit) : rows;
		return new Page<>(page, more ? Cursors.ofId(page.getLast().id()) : null);
	}

	private static ItemView view(ItemRow row, Parts parts) {
		return new ItemView(row.id(), row.title(), row.description(), row.priority(), row.queue(), row.metadata(),
				row.parentId(), row.result(), row.epoch(), row.status(), row.createdAt(), row.updatedAt(),
				row.readySince(), row.closedAt(), row.cancelReason(), row.createdBy(), row.cancelledBy(),
				row.blockers(), parts.dependsOn(), parts.children(), parts.lease(), parts.attentionRequests(),
				parts.checkpoint(), row.attempts(), row.retry(), parts.waits());
	}

	/**
	 * Which items to list; every field is optional. {@code titleContains} matches titles
	 * that contain it in any letter case.
	 */
	public record ItemFilter(Set<ItemStatus> statuses, String queue, UUID parentId, String titleContains,
			boolean newestFirst) {

		/** Oldest first. */
		public ItemFilter(Set<ItemStatus> statuses, String queue, UUID parentId, String titleContains) {
			this(statuses, queue, parentId, titleContains, false);
		}

	}

	/** What an item view shows besides the item's own row. */
	record Parts(List<DependencyView> dependsOn, List<ChildView> children, LeaseView lease,
			List<AttentionRequestView> attentionRequests, CheckpointView checkpoint, List<WaitView> waits) {

		static Parts map(ResultSet rs) throws SQLException {
			String lease = rs.getString("lease_json");
			return map(rs, (lease != null) ? json.readValue(lease, LeaseView.class) : null);
		}

		/** The parts but the lease from the row, with the given lease. */
		static Parts map(ResultSet rs, LeaseView lease) throws SQLException {
			return new Parts(list(rs.getString("depends_on_json"), DEPENDENCIES),
					list(rs.getString("children_json"), CHILDREN), lease,
					list(rs.getString("attention_requests_json"), ATTENTION_REQUESTS),
					one(rs.getString("checkpoint_json"), CheckpointView.class),
					list(rs.getString("waits_json"), WAITS));
		}

		private static <T> T one(String object, Class<T> type) {
			return (object != null) ? json.readValue(object, type) : null;
		}

		private static <T> List<T> list(String array, TypeReference<List<T>> type) {
			// Most items have no dependencies, children or questions: skip the parser.
			return EMPTY.equals(array) ? List.of() : List.copyOf(json.readValue(array, type));
		}

	}

}
