package dev.workgraph.item;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The wait-for graph: X waits for Y when X depends on Y or X is Y's parent. It must stay
 * acyclic.
 *
 * <p>
 * A cycle check under READ COMMITTED races with a concurrent check (each sees the graph
 * without the other's edge: a→b and b→a both pass), and locking the two ends of an edge
 * does not help with longer cycles. So every change that can close a cycle first takes
 * one transaction-scoped advisory lock and only then reads the graph: such changes run
 * one at a time, each seeing all edges committed before it. Changes that cannot close a
 * cycle (an item created with only a parent, or only dependencies, since nothing yet
 * waits for it or it waits for nothing) skip the lock. Take the lock before any row lock,
 * so that lock order stays: graph lock, then item rows.
 */
@Repository
class WaitForGraph {

	/** "WGGRAPH" — the advisory lock key that serializes cycle-prone graph changes. */
	private static final long GRAPH_LOCK_KEY = 0x5747_4752_4150_4800L;

	static final String LOCK_GRAPH = "select 1 from pg_advisory_xact_lock(:key)";

	/** Lazily evaluated: PostgreSQL stops the walk as soon as the target turns up. */
	static final String IS_REACHABLE = """
			with recursive reach(id) as (
			    select unnest(:from::uuid[])
			    union
			    select next.id
			    from reach r
			    cross join lateral (
			        select d.depends_on_id as id from dependencies d where d.item_id = r.id
			        union all
			        select c.id from work_items c where c.parent_id = r.id
			    ) next
			)
			select exists (select 1 from reach where id = :target)
			""";

	static final String WAITS_FOR = """
			select d.item_id as waiter, d.depends_on_id as waited_for from dependencies d where d.item_id = any(:ids::uuid[])
			union all
			select c.parent_id, c.id from work_items c where c.parent_id = any(:ids::uuid[])
			""";

	private final JdbcClient jdbc;

	WaitForGraph(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	void lockForChange() {
		this.jdbc.sql(LOCK_GRAPH).param("key", GRAPH_LOCK_KEY).query(Integer.class).single();
	}

	/**
	 * The shortest chain of waits from one of {@code from} to {@code target}
	 * ({@code from} element first, {@code target} last), or empty when {@code target} is
	 * not reachable. Call under {@link #lockForChange()}.
	 */
	Optional<List<UUID>> pathToAny(Collection<UUID> from, UUID target) {
		if (from.contains(target)) {
			return Optional.of(List.of(target));
		}
		boolean reachable = this.jdbc.sql(IS_REACHABLE)
			.param("from", SqlArrays.uuids(from))
			.param("target", target)
			.query(Boolean.class)
			.single();
		return reachable ? Optional.of(shortestPath(from, target)) : Optional.empty();
	}

	/**
	 * Breadth-first, one query per level; only runs when a cycle is already known to
	 * exist.
	 */
	private List<UUID> shortestPath(Collection<UUID> from, UUID target) {
		Map<UUID, UUID> reachedFrom = new HashMap<>();
		Set<UUID> visited = new HashSet<>(from);
		Set<UUID> frontier = new LinkedHashSet<>(from);
		while (!frontier.isEmpty() && !visited.contains(target)) {
			Set<UUID> next = new LinkedHashSet<>();
			for (Edge edge : this.jdbc.sql(WAITS_FOR)
				.param("ids", SqlArrays.uuids(frontier))
				.query((rs, n) -> new Edge(rs.getObject("waiter", UUID.class), rs.getObject("waited_for", UUID.class)))
				.list()) {
				if (visited.add(edge.waitedFor())) {
					reachedFrom.put(edge.waitedFor(), edge.waiter());
					next.add(edge.waitedFor());
				}
			}
			frontier = next;
		}
		List<UUID> path = new ArrayList<>();
		for (UUID at = target; at != null; at = reachedFrom.get(at)) {
			path.addFirst(at);
		}
		return path;
	}

	private record Edge(UUID waiter, UUID waitedFor) {
	}

}
