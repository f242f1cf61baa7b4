package dev.workgraph.batching;

/**
 * What a request waiting in a {@link Coalescer} is told: its result, the failure of its
 * batch, that the lane is its own to lead the next batch, or that it waited too long.
 *
 * @param <R> the result for a request
 */
sealed interface Outcome<R> permits Outcome.Done, Outcome.Failed, Outcome.Lead, Outcome.TimedOut {

	/**
	 * The result, or the batch's own exception, so that each request is answered as if it
	 * had run alone (503 for an unreachable database, and so on).
	 */
	static <R> R unwrap(Outcome<R> outcome) {
		if (outcome instanceof Done<R> done) {
			return done.result();
		}
		if (outcome instanceof Failed<R> failed) {
			if (failed.failure() instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (failed.failure() instanceof Error error) {
				throw error;
			}
			throw new IllegalStateException(failed.failure());
		}
		throw new IllegalStateException("Handed the lane, not an answer");
	}

	record Done<R>(R result) implements Outcome<R> {
	}

	record Failed<R>(Throwable failure) implements Outcome<R> {
	}

	/** The lane is yours: take the queued requests and run the next batch. */
	record Lead<R>() implements Outcome<R> {
	}

	/** Waited past its limit ({@code where}: queued, or in a batch that ran too long). */
	record TimedOut<R>(String where) implements Outcome<R> {
	}

}
