package dev.workgraph.view;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.model.Rows;

/**
 * A lease as statements read it, written once: the columns of a {@link LeaseView} over an
 * active lease (a {@code leases} row) or an ended one (a {@code lease_history} row), the
 * same as one JSON object, and the row mapping. Active and ended leases thus have one
 * shape whichever statement returns them: a claim, a renewal, an ending, an item view or
 * a lease read.
 */
public final class LeaseRows {

	/**
	 * Each part of a lease: its column, its JSON key, and its value for an active lease
	 * (alias {@code %1$s}) and for an ended one (alias {@code h}).
	 */
	private static final List<Part> PARTS = List.of(new Part("id", "id", "%1$s.id", "h.lease_id"),
			new Part("item_id", "itemId", "%1$s.item_id", "h.item_id"),
			new Part("worker_id", "workerId", "%1$s.worker_id", "h.worker_id"),
			new Part("epoch", "epoch", "%1$s.epoch", "h.epoch"),
			new Part("acquired_at", "acquiredAt", "%1$s.acquired_at", "h.acquired_at"),
			new Part("renewed_at", "renewedAt", "%1$s.renewed_at", "h.renewed_at"),
			new Part("expires_at", "expiresAt", "%1$s.expires_at", "h.expires_at"),
			// Dead at expiresAt, whether or not the reaper has recorded the expiry yet.
			new Part("active", "active", "%1$s.expires_at > now()", "false"),
			new Part("ended_at", "endedAt", "null::timestamptz", "h.ended_at"),
			new Part("outcome", "outcome", "null::text", "h.outcome"),
			new Part("reason", "reason", "null::text", "h.reason"));

	/**
	 * The prefix of a lease's columns in a row that holds an item's columns too (a
	 * claim's grant, a completion).
	 */
	public static final String PREFIX_BESIDE_ITEM = "lease_";

	/** The columns of the active lease {@code l}. */
	public static final String ACTIVE = active("l", "");

	/** The columns of the ended lease {@code h}, a {@code lease_history} row. */
	public static final String ENDED = ended("");

	/** The active lease {@code l} as one JSON object, keyed as {@link LeaseView}. */
	public static final String ACTIVE_AS_JSON = "json_build_object("
			+ join((part) -> "'" + part.key() + "', " + part.active().formatted("l")) + ")";

	private LeaseRows() {
	}

	/**
	 * The columns of an active lease under another alias, each name prefixed (so that
	 * they can stand beside an item's columns).
	 */
	public static String active(String alias, String prefix) {
		return join((part) -> part.active().formatted(alias) + " as " + prefix + part.column());
	}

	/**
	 * The columns of the ended lease {@code h}, each name prefixed (so that they can
	 * stand beside an item's columns).
	 */
	public static String ended(String prefix) {
		return join((part) -> part.ended() + " as " + prefix + part.column());
	}

	public static LeaseView map(ResultSet rs, int rowNum) throws SQLException {
		return read(rs, "");
	}

	/** Reads the lease columns named with this prefix (see {@link #active}). */
	public static LeaseView read(ResultSet rs, String prefix) throws SQLException {
		return new LeaseView(Rows.uuid(rs, prefix + "id"), Rows.uuid(rs, prefix + "item_id"),
				rs.getString(prefix + "worker_id"), rs.getLong(prefix + "epoch"),
				Rows.instant(rs, prefix + "acquired_at"), Rows.instant(rs, prefix + "renewed_at"),
				Rows.instant(rs, prefix + "expires_at"), rs.getBoolean(prefix + "active"),
				Rows.instant(rs, prefix + "ended_at"), LeaseOutcome.fromWire(rs.getString(prefix + "outcome")),
				rs.getString(prefix + "reason"));
	}

	private static String join(Function<Part, String> column) {
		return PARTS.stream().map(column).collect(Collectors.joining(", "));
	}

	private record Part(String column, String key, String active, String ended) {
	}

}
