package dev.workgraph.batching;

import java.util.List;
import java.util.function.BiFunction;

/**
 * Runs one request as part of a batch and answers its own result. The two ways of doing
 * it, chosen once at start ({@link Batchers}), answer alike: {@link Coalescer} serves
 * requests that arrive together with one batch; {@link #alone} runs every request as a
 * batch of one on the caller's thread. Callers submit, and never ask which it is.
 *
 * @param <K> what requests must share to be served together
 * @param <Q> a request
 * @param <R> the result for a request
 */
public interface Batcher<K, Q, R> {

	/**
	 * The request's result, or the exception its batch failed with (as if it had run
	 * alone).
	 */
	R submit(K key, Q request);

	/**
	 * Every request its own batch of one, through the same two phases a {@link Coalescer}
	 * runs, on the caller's thread.
	 */
	static <K, Q, P, R> Batcher<K, Q, R> alone(BiFunction<K, List<Q>, List<P>> inLane,
			BiFunction<K, List<P>, List<R>> afterLane) {
		return (key, request) -> afterLane.apply(key, inLane.apply(key, List.of(request))).getFirst();
	}

}
