package dev.workgraph.client;

import java.util.List;

/**
 * The answer to decompose: the ended lease, the (now blocked) item and the children
 * created under it.
 */
public record Decomposed(Lease lease, Item item, List<Item> children) {

	public Decomposed {
		children = (children != null) ? List.copyOf(children) : List.of();
	}

}
