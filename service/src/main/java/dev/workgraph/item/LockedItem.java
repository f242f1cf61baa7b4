package dev.workgraph.item;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;

import dev.workgraph.model.ItemStatus;

/**
 * An item row this transaction holds a lock on, so these values cannot change until it
 * ends.
 */
public record LockedItem(UUID id, ItemStatus status, UUID parentId, long epoch, int priority, String queue,
		int unmetDependencies, int openChildren) {

	/** The columns {@link #map} reads, of {@code work_items}. */
	public static final String COLUMNS = "id, status, parent_id, epoch, priority, queue, unmet_dependencies, open_children";

	/** {@link #COLUMNS} of the {@code work_items} row aliased {@code alias}. */
	public static String columns(String alias) {
		return alias + "." + COLUMNS.replace(", ", ", " + alias + ".");
	}

	public static LockedItem map(ResultSet rs, int rowNum) throws SQLException {
		return new LockedItem(rs.getObject("id", UUID.class), ItemStatus.fromWire(rs.getString("status")),
				rs.getObject("parent_id", UUID.class), rs.getLong("epoch"), rs.getInt("priority"),
				rs.getString("queue"), rs.getInt("unmet_dependencies"), rs.getInt("open_children"));
	}

	/**
	 * The priority of a new child of this item: the one it names, else this item's. Both
	 * ways of adding children ({@code POST /items} with a {@code parentId}, decompose)
	 * inherit alike.
	 */
	public int childPriority(Integer given) {
		return (given != null) ? given : this.priority;
	}

	/** The queue of a new child of this item: the one it names, else this item's. */
	public String childQueue(String given) {
		return (given != null) ? given : this.queue;
	}

	public boolean isTerminal() {
		return this.status.isTerminal();
	}

	public LockedItem requireOpen() {
		if (isTerminal()) {
			throw new ItemIsTerminal(this.id, this.status.wire());
		}
		return this;
	}

}
