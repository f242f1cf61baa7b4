package dev.workgraph.client;

import java.util.List;

/**
 * Leases of an item ordered by epoch; {@link #nextCursor()} is null on the last page (and
 * always, from a service that does not page them).
 */
public record LeasePage(List<Lease> leases, String nextCursor) {

	public LeasePage {
		leases = (leases != null) ? List.copyOf(leases) : List.of();
	}

}
