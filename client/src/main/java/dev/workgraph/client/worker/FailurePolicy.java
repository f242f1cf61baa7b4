package dev.workgraph.client.worker;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decides what happens to an item whose handler threw. The service keeps no retry count,
 * so the default counts for it: {@link #releaseThenAskHuman(int)} releases the item
 * (another worker may succeed) until handlers failed on it that many times in a row, then
 * pauses it with a question for a human, so that a poison item cannot keep every worker
 * busy failing.
 */
@FunctionalInterface
public interface FailurePolicy {

	FailureAction decide(HandlerFailure failure);

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
	 * (counted from its lease history): then ask a human. The default, with 3.
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
