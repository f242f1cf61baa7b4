package dev.workgraph.item;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.workgraph.support.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Dependency edges: {@code item_id} waits until {@code depends_on_id} is completed. */
@Repository
public class Dependencies {

	static final String INSERT_DEPENDENCIES = """
			insert into dependencies (item_id, depends_on_id)
			select * from unnest(:items::uuid[], :targets::uuid[])
			on conflict do nothing
			returning item_id
			""";

	static final String DELETE_DEPENDENCY = """
			delete from dependencies where item_id = :itemId and depends_on_id = :dependsOnId
			""";

	/**
	 * Who is waiting on these items as a dependency: each completion unblocks them by
	 * one.
	 */
	static final String DEPENDENTS_OF = """
			select item_id from dependencies where depends_on_id = any(:ids::uuid[])
			""";

	private final JdbcClient jdbc;

	public Dependencies(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Inserts the edges that do not exist yet; returns how many were new. */
	public int insert(List<Edge> edges) {
		if (edges.isEmpty()) {
			return 0;
		}
		List<UUID> items = new ArrayList<>(edges.size());
		List<UUID> targets = new ArrayList<>(edges.size());
		for (Edge edge : edges) {
			items.add(edge.itemId());
			targets.add(edge.dependsOnId());
		}
		return this.jdbc.sql(INSERT_DEPENDENCIES)
			.param("items", SqlArrays.uuids(items))
			.param("targets", SqlArrays.uuids(targets))
			.query(UUID.class)
			.list()
			.size();
	}

	public boolean delete(UUID itemId, UUID dependsOnId) {
		return this.jdbc.sql(DELETE_DEPENDENCY).param("itemId", itemId).param("dependsOnId", dependsOnId).update() == 1;
	}

	/** The dependents of the given items, once per edge. */
	public List<UUID> dependentsOf(List<UUID> itemIds) {
		return this.jdbc.sql(DEPENDENTS_OF).param("ids", SqlArrays.uuids(itemIds)).query(UUID.class).list();
	}

	/** {@code itemId} depends on {@code dependsOnId}. */
	public record Edge(UUID itemId, UUID dependsOnId) {
	}

}
