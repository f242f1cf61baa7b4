package dev.workgraph.batching;

import java.time.Duration;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/**
 * A claim waited longer than {@code workgraph.coalescing.max-wait} for a batch to serve
 * it: more claims arrive than the database can serve, so the caller hears that the
 * service is overloaded (503 with Retry-After), not that the database is unavailable. A
 * claim that gives up while still queued is never served afterwards.
 */
class ClaimQueueTimedOut extends RequestRejected {

	ClaimQueueTimedOut(Duration maxWait, String where) {
		super(ProblemCode.SERVICE_UNAVAILABLE, "The claim got no answer within " + maxWait.toMillis() + " ms while "
				+ where + " (the service is overloaded); retry the request shortly");
	}

}
