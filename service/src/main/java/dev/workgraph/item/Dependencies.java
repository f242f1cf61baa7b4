package dev.workgraph.item;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** Dependency edges: {@code item_id} waits until {@code depends_on_id} is completed. */
@Repository
class Dependencies {

	static final String INSERT_DEPENDENCIES = """
			insert into dependencies (item_id, depends_on_id)
			select * from unnest(:items::uuid[], :targets::uuid[])
			on conflict do nothing
			returning item_id
			""";

	static final String DELETE_DEPENDENCY = """
			delete from dependencies where item_id = :itemId and depends_on_id = :dependsOnId
			""";

	private final JdbcClient jdbc;

	Dependencies(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Inserts the edges that do not exist yet; returns how many were new. */
	int insert(List<Edge> edges) {
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

	boolean delete(UUID itemId, UUID dependsOnId) {
		return this.jdbc.sql(DELETE_DEPENDENCY).param("itemId", itemId).param("dependsOnId", dependsOnId).update() == 1;
	}

	/** {@code itemId} depends on {@code dependsOnId}. */
	record Edge(UUID itemId, UUID dependsOnId) {
	}

}
