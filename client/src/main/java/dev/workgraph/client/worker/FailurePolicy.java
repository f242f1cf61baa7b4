package dev.workgraph.client.worker;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decides what happens to an item whose handler threw. The default,
 * {@link #failWithServicePolicy()}, leaves the counting to the service: the lease ends
 * {@code failed} with the exception as its error, and the item's own retry policy
 * (attempts, back-off with jitter, a human asked when they are used up) decides what
 * follows, the same for every worker and every client.
 */
@FunctionalInterface
public interface FailurePolicy {

	FailureAction decide(HandlerFailure failure);

	/**
	 * Fail the lease with the exception as its error and let the service's retry policy
	 * of the item decide: another attempt after its back-off, or a human once
	 * {@code retry.maxAttempts} attempts are used up (see {@link HandlerFailure#item()}'s
	 * {@code attempts} and {@code retry}). The default.
	 */
	static FailurePolicy failWithServicePolicy() {
		return (failure) -> FailureAction.fail(failure.error(), true);
	}

	/**
	 * Always release, with the failure as the reason. A poison item circulates forever.
	 */
	static FailurePolicy release() {
		return (failure) -> FailureAction.release(failure.summary());
	}

	/** Always pause the item with a question for a human. */
	static FailurePolicy askHuman() {
		return (failure) -> FailureAction.askHuman(question(failure, 1), context(failure, 1));
	}

	/**
	 * Release, unless this is the {@code failuresInARow}-th failure in a row on the item
	 * (counted from its lease history): then ask a human. Releases are not attempts, so
	 * the item's retry policy and back-off do not apply; prefer
	 * {@link #failWithServicePolicy()}.
	 */
	static FailurePolicy releaseThenAskHuman(int failuresInARow) {
		if (failuresInARow < 1) {
			throw new IllegalArgumentException("failuresInARow must be at least 1");
		}
		return (failure) -> {
			int failures = (failuresInARow == 1) ? 1 : failure.earlierFailures() + 1;
			if (failures >= failuresInARow) {
				return FailureAction.askHuman(question(failure, failures), context(failure, failures));
			}
			return FailureAction.release(failure.summary());
		};
	}

	private static String question(HandlerFailure failure, int failures) {
		return "The worker's handler failed on this item " + ((failures == 1) ? "once" : failures + " times in a row")
				+ "; the last failure: " + failure.summary()
				+ ". Fix the cause (or the item), then resolve this request to let workers try again.";
	}

	private static Map<String, Object> context(HandlerFailure failure, int failures) {
		Map<String, Object> context = new LinkedHashMap<>();
		context.put("workerId", failure.lease().workerId());
		context.put("exception", failure.exception().getClass().getName());
		context.put("message", String.valueOf(failure.exception().getMessage()));
		context.put("failuresInARow", failures);
		return context;
	}

}
