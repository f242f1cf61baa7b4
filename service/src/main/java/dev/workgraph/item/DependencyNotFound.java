package dev.workgraph.item;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/** The dependency edge to remove does not exist. */
class DependencyNotFound extends RequestRejected {

	DependencyNotFound(UUID itemId, UUID dependsOnId) {
		super(ProblemCode.NOT_FOUND, "Item " + itemId + " does not depend on " + dependsOnId);
		with("itemId", itemId).with("dependsOn", dependsOnId);
	}

}
