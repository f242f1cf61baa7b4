package dev.workgraph.item;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Writes to work_items that are not blocker adjustments: inserting, locking, completing,
 * cancelling.
 */
@Repository
class Items {

	/** Id order is the lock order whenever a statement locks several items. */
	static final String LOCK_ITEMS = "select " + LockedItem.COLUMNS + """
			 from work_items where id = any(:ids::uuid[]) order by id for no key update
			""";

	/**
	 * Share locks keep a dependency's status stable (a completion waits) while an edge is
	 * added.
	 */
	static final String LOCK_ITEMS_SHARED = "select " + LockedItem.COLUMNS + """
			 from work_items where id = any(:ids::uuid[]) order by id for share
			""";

	/**
	 * Inserts new items; each is ready or blocked by its unmet dependencies or a
	 * notBefore still to come (a new item has no children and no attention requests yet),
	 * and ready ones are enqueued for claiming in the same statement.
	 */
	static final String INSERT_ITEMS = """
			with inserted as (
			    insert into work_items (id, title, description, priority, queue, metadata, parent_id, status,
			        unmet_dependencies, ready_since, created_by, retry, not_before)
			    select n.id, n.title, n.description, n.priority, n.queue, n.metadata::jsonb, :parentId::uuid,
			        case when n.unmet = 0 and n.scheduled is null then 'ready' else 'blocked' end, n.unmet,
			        case when n.unmet = 0 and n.scheduled is null then now() end, :createdBy,
			        -- A child that names no policy inherits its parent's.
			        coalesce(n.retry::jsonb, (select p.retry from work_items p where p.id = :parentId::uuid),
			            :defaultRetry::jsonb),
			        n.scheduled
			    from (
			        select u.*,
			            -- A time that has already come blocks nothing.
			            case when u.not_before > now() then u.not_before end as scheduled
			        from unnest(:ids::uuid[], :titles::text[], :descriptions::text[], :priorities::int[],
			            :queues::text[], :metadata::text[], :unmet::int[], :retries::text[], :notBefore::timestamptz[])
			            as u(id, title, description, priority, queue, metadata, unmet, retry, not_before)
			    ) n
			    returning id, queue, priority, ready_since, status
			)
			insert into ready_items (item_id, queue, priority, ready_since)
			select id, queue, priority, ready_since from inserted where status = 'ready'
			""";

	/**
	 * Locks the items that exist among {@code ids} in the order given, for an order other
	 * than by id (see {@link Cancellation}).
	 */
	static final String LOCK_ITEMS_IN_ORDER = """
			select %s from unnest(:ids::uuid[]) with ordinality as o(id, position)
			join work_items w on w.id = o.id
			order by o.position
			for no key update of w
			""".formatted(LockedItem.columns("w"));

	/**
	 * The root and its descendants that are still open, deepest first and the root last;
	 * below a terminal item everything is terminal.
	 */
	static final String OPEN_SUBTREE = """
			with recursive subtree(id, depth) as (
			    select id, 0 from work_items where id = :root and status not in ('completed', 'cancelled')
			    union all
			    select c.id, s.depth + 1 from subtree s join work_items c on c.parent_id = s.id
			    where c.status not in ('completed', 'cancelled')
			)
			select id from subtree order by depth desc, id
			""";

	/**
	 * Closed at the moment of this statement, after the items were locked: the cancelling
	 * transaction may have begun (fixing {@code now()}) before a claim of one of them
	 * committed, and an item must not look closed before its last lease was acquired.
	 */
	static final String MARK_CANCELLED = """
			with moment as (
			    select clock_timestamp() as t
			), cancelled as (
			    update work_items
			    set status = 'cancelled', closed_at = moment.t, cancel_reason = :reason, cancelled_by = :cancelledBy,
			        ready_since = null, not_before = null, updated_at = moment.t
			    from moment
			    where id = any(:ids::uuid[]) and status not in ('completed', 'cancelled')
			    returning id, parent_id
			), dequeued as (
			    -- By key, not a join: the queue's statistics often say it is empty, and a
			    -- join then compares every ready entry with every cancelled item.
			    delete from ready_items r where r.item_id = any(array(select c.id from cancelled c))
			)
			select id, parent_id from cancelled
			""";

	private final JdbcClient jdbc;

	private final RetryProperties retry;

	Items(JdbcClient jdbc, RetryProperties retry) {
		this.jdbc = jdbc;
		this.retry = retry;
	}

	/** Locks the items that exist among {@code ids}, in id order, for updating them. */
	Map<UUID, LockedItem> lock(Collection<UUID> ids) {
		return locked(LOCK_ITEMS, ids);
	}

	/**
	 * Locks the items that exist among {@code ids}, in id order, so their status cannot
	 * change.
	 */
	Map<UUID, LockedItem> lockShared(Collection<UUID> ids) {
		return locked(LOCK_ITEMS_SHARED, ids);
	}

	/** Locks the items that exist among {@code ids}, in the order given. */
	Map<UUID, LockedItem> lockInOrder(List<UUID> ids) {
		return locked(LOCK_ITEMS_IN_ORDER, ids);
	}

	LockedItem lockExisting(UUID id) {
		LockedItem item = lock(List.of(id)).get(id);
		if (item == null) {
			throw new ItemNotFound(id);
		}
		return item;
	}

	private Map<UUID, LockedItem> locked(String sql, Collection<UUID> ids) {
		Map<UUID, LockedItem> locked = new LinkedHashMap<>();
		if (!ids.isEmpty()) {
			this.jdbc.sql(sql)
				.param("ids", SqlArrays.uuids(ids))
				.query(LockedItem::map)
				.list()
				.forEach((item) -> locked.put(item.id(), item));
		}
		return locked;
	}

	/**
	 * Inserts the items, all children of {@code parentId} (null: roots); {@code unmet}
	 * counts each one's dependencies that are not completed; {@code createdBy} is the
	 * author's name or null.
	 */
	void insert(UUID parentId, List<NewItem> items, int[] unmet, String createdBy) {
		List<UUID> ids = new ArrayList<>();
		List<String> titles = new ArrayList<>();
		List<String> descriptions = new ArrayList<>();
		int[] priorities = new int[items.size()];
		List<String> queues = new ArrayList<>();
		List<String> metadata = new ArrayList<>();
		List<String> retries = new ArrayList<>();
		List<String> notBefore = new ArrayList<>();
		for (int i = 0; i < items.size(); i++) {
			NewItem item = items.get(i);
			ids.add(item.id());
			titles.add(item.title());
			descriptions.add(item.description());
			priorities[i] = item.priority();
			queues.add(item.queue());
			metadata.add(item.metadata());
			retries.add((item.retry() != null) ? item.retry().completedBy(this.retry.policy()).json() : null);
			notBefore.add((item.notBefore() != null) ? item.notBefore().toString() : null);
		}
		this.jdbc.sql(INSERT_ITEMS)
			.param("ids", SqlArrays.uuids(ids))
			.param("titles", SqlArrays.texts(titles))
			.param("descriptions", SqlArrays.texts(descriptions))
			.param("priorities", SqlArrays.ints(priorities))
			.param("queues", SqlArrays.texts(queues))
			.param("metadata", SqlArrays.texts(metadata))
			.param("retries", SqlArrays.texts(retries))
			.param("notBefore", SqlArrays.texts(notBefore))
			.param("defaultRetry", this.retry.policy().json())
			.param("parentId", parentId)
			.param("unmet", SqlArrays.ints(unmet))
			.param("createdBy", createdBy)
			.update();
	}

	/** The open subtree under (and including) the root, deepest items first. */
	List<UUID> openSubtree(UUID rootId) {
		return this.jdbc.sql(OPEN_SUBTREE).param("root", rootId).query(UUID.class).list();
	}

	/**
	 * Marks the items cancelled and dequeues them; returns each cancelled item with its
	 * parent. {@code cancelledBy} is the author's name or null.
	 */
	List<ParentLink> markCancelled(Collection<UUID> ids, String reason, String cancelledBy) {
		return this.jdbc.sql(MARK_CANCELLED)
			.param("ids", SqlArrays.uuids(ids))
			.param("reason", reason)
			.param("cancelledBy", cancelledBy)
			.query((rs, n) -> new ParentLink(rs.getObject("id", UUID.class), rs.getObject("parent_id", UUID.class)))
			.list();
	}

	/** An item and its parent (null for a root). */
	record ParentLink(UUID itemId, UUID parentId) {
	}

}
