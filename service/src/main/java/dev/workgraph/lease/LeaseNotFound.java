package dev.workgraph.lease;

import java.util.UUID;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/** No lease, active or ended, has this id. */
public class LeaseNotFound extends RequestRejected {

	public LeaseNotFound(UUID leaseId) {
		super(ProblemCode.NOT_FOUND, "Lease " + leaseId + " does not exist");
		with("leaseId", leaseId);
	}

}
