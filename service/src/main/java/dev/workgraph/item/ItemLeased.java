package dev.workgraph.item;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/**
 * The request would change what only the item's lease holder decides while it holds the
 * lease (its notBefore: the holder releases it with {@code retryAfterSeconds} instead).
 */
class ItemLeased extends RequestRejected {

	ItemLeased(UUID itemId) {
		super(ProblemCode.ITEM_LEASED,
				"Item " + itemId + " is leased; its holder may release it with retryAfterSeconds, or cancel it first");
		with("itemId", itemId);
	}

}
