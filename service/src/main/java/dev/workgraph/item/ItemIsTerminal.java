package dev.workgraph.item;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/** The request would change an item that is already completed or cancelled. */
class ItemIsTerminal extends RequestRejected {

	ItemIsTerminal(UUID itemId, String status) {
		super(ProblemCode.ITEM_TERMINAL, "Item " + itemId + " is " + status + " and can no longer change");
		// "status" is the HTTP status in a problem (RFC 9457); the item's is itemStatus.
		with("itemId", itemId).with("itemStatus", status);
	}

}
