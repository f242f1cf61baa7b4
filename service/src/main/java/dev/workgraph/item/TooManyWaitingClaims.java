package dev.workgraph.item;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/**
 * One token already has as many long-poll claims waiting on this instance as it may: each
 * holds a connection and a thread for up to a minute, so one worker must not take them
 * all. 429 with Retry-After (see Problems).
 */
class TooManyWaitingClaims extends RequestRejected {

	TooManyWaitingClaims(int max) {
		super(ProblemCode.TOO_MANY_WAITING_CLAIMS,
				"This token already has " + max
						+ " long-poll claims waiting (workgraph.notifications.max-waiting-claims-per-token); "
						+ "let one of them answer first, or claim without waitSeconds");
	}

}
