package dev.workgraph.client.worker;

import dev.workgraph.client.problem.Forbidden;
import dev.workgraph.client.problem.RequestRejected;
import dev.workgraph.client.problem.Unauthenticated;
import dev.workgraph.client.problem.WorkGraphException;

/**
 * The service refused the worker's token, so the worker stopped: sending the same token
 * again would be refused again, however long it waited. The cause is the refusal:
 * {@link Unauthenticated} (401: no token, or one the service does not know or has
 * revoked) or {@link Forbidden} (403: not a worker token, or one bound to another worker
 * id). The fix is a worker token bound to the worker's id, which an admin creates with
 * {@code POST /tokens}.
 */
public class TokenRefused extends WorkGraphException {

	private static final long serialVersionUID = 1L;

	public TokenRefused(String message, RequestRejected cause) {
		super(message, cause);
	}

	/** Whether this failure refuses the token itself rather than the request. */
	static boolean refusesToken(Throwable failure) {
		return failure instanceof Unauthenticated || failure instanceof Forbidden;
	}

	/** The failure that stops worker {@code workerId} (null: the token's own). */
	static TokenRefused of(RequestRejected refusal, String workerId) {
		String worker = (workerId != null) ? "Worker " + workerId : "The worker";
		String example = (workerId != null) ? workerId : "<its worker id>";
		return new TokenRefused(worker + " cannot go on: the service refused its token (" + refusal.getMessage()
				+ "). A worker needs a worker token bound to its worker id: an admin creates one with POST /tokens "
				+ "{\"name\":\"" + example + "\",\"role\":\"worker\",\"workerId\":\"" + example
				+ "\"} (or WorkGraphClient.createToken(NewToken.worker(…))), and the worker sends that token.",
				refusal);
	}

	/** The service's refusal: {@link Unauthenticated} or {@link Forbidden}. */
	public RequestRejected refusal() {
		return (RequestRejected) getCause();
	}

	/** A copy thrown in the caller's thread, with the same message and cause. */
	TokenRefused rethrown() {
		return new TokenRefused(getMessage(), refusal());
	}

}
