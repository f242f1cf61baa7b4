package dev.workgraph.lease.ending;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/** Completing was refused: the item still has children that are not terminal. */
class OpenChildrenRemain extends RequestRejected {

	OpenChildrenRemain(UUID itemId, int openChildren) {
		super(ProblemCode.OPEN_CHILDREN, "Item " + itemId + " has " + openChildren
				+ " open children; it can be completed once they are completed or cancelled");
		with("itemId", itemId).with("openChildren", openChildren);
	}

}
