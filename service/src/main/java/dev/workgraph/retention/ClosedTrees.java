package dev.workgraph.retention;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.workgraph.sql.SqlArrays;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Closed item trees past retention, found by their roots and removed a batch of roots per
 * transaction by the database function {@code retention_remove_trees} (V60), which checks
 * again, tree by tree under its own row locks, everything that makes a tree removable.
 */
@Repository
class ClosedTrees {

	/**
	 * Roots that may be removable, in id order after {@code after}. Ids are UUIDv7, so an
	 * item closed before the cutoff was created before it: the primary key's range up to
	 * the cutoff's first id holds every candidate, and no index of the hot tables is
	 * added for retention (a {@code closed_at} index would cost every completion an index
	 * write).
	 */
	static final String ROOTS_CLOSED_BEFORE = """
			select id from work_items
			where id > :after and id < :upTo and parent_id is null and closed_at < :cutoff
			order by id
			limit :limit
			""";

	static final String REMOVE_TREES = "select trees, items from retention_remove_trees(:roots::uuid[], :cutoff)";

	private final JdbcClient jdbc;

	ClosedTrees(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	List<UUID> rootsClosedBefore(Instant cutoff, UUID after, int limit) {
		return this.jdbc.sql(ROOTS_CLOSED_BEFORE)
			.param("after", after)
			.param("upTo", firstIdAt(cutoff))
			.param("cutoff", Timestamp.from(cutoff))
			.param("limit", limit)
			.query(UUID.class)
			.list();
	}

	/**
	 * Removes the trees of those roots that are removable, in one transaction; the others
	 * (not, or no longer, removable) stay untouched.
	 */
	Removed removeTrees(List<UUID> roots, Instant cutoff) {
		return this.jdbc.sql(REMOVE_TREES)
			.param("roots", SqlArrays.uuids(roots))
			.param("cutoff", Timestamp.from(cutoff))
			.query(Removed.class)
			.single();
	}

	/** What one batch removed: whole trees, and the items in them. */
	record Removed(int trees, int items) {
	}

	/** The smallest UUIDv7 of the cutoff's millisecond. */
	static UUID firstIdAt(Instant cutoff) {
		return new UUID((cutoff.toEpochMilli() << 16) | 0x7000L, 0x8000_0000_0000_0000L);
	}

	/** Below every UUID in PostgreSQL's order. */
	static final UUID LOWEST = new UUID(0, 0);

}
