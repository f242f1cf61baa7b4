package dev.workgraph.batching;

import java.util.concurrent.CompletableFuture;

/** A request of the key's lane, and when it arrived ({@link System#nanoTime}). */
record Waiter<K, Q, R>(K key, Q request, long since, CompletableFuture<Outcome<R>> outcome) {

	Waiter(K key, Q request, long since) {
		this(key, request, since, new CompletableFuture<>());
	}

	// Identity, not value equality: two equal requests are still two waiters.
	@Override
	public boolean equals(Object other) {
		return this == other;
	}

	@Override
	public int hashCode() {
		return System.identityHashCode(this);
	}

}
