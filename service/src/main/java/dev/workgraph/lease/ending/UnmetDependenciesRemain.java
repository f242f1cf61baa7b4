package dev.workgraph.lease.ending;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/**
 * Completing was refused: a dependency added while the item was leased is not completed
 * yet. The holder should release the item; it becomes ready again when the dependency
 * completes.
 */
class UnmetDependenciesRemain extends RequestRejected {

	UnmetDependenciesRemain(UUID itemId, int unmetDependencies) {
		super(ProblemCode.UNMET_DEPENDENCIES, "Item " + itemId + " has " + unmetDependencies
				+ " unmet dependencies; release it instead, it becomes ready when they complete");
		with("itemId", itemId).with("unmetDependencies", unmetDependencies);
	}

}
