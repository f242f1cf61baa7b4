package dev.workgraph.item;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/** The request names an item that does not exist. */
public class ItemNotFound extends RequestRejected {

	public ItemNotFound(UUID itemId) {
		super(ProblemCode.NOT_FOUND, "Item " + itemId + " does not exist");
		with("itemId", itemId);
	}

}
