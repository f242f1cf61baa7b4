package dev.workgraph.client;

import java.util.List;

/**
 * One page of items; pass {@link #nextCursor()} back as the cursor for the next (null on
 * the last page).
 */
public record ItemPage(List<Item> items, String nextCursor) {

	public ItemPage {
		items = (items != null) ? List.copyOf(items) : List.of();
	}

}
