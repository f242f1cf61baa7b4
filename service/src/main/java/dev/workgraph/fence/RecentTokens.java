package dev.workgraph.fence;

import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fence tokens signed lately, by what they sign. A lease's state is written more than
 * once with the same claims — the claim's answer, then the ended lease in the
 * completion's answer (same epoch, same grant and expiry), a page of lease history read
 * again — and an Ed25519 signature costs some 60 µs of CPU, a fifth of a whole request.
 * Signatures are deterministic, so a remembered token is the very token signing again
 * would give.
 *
 * <p>
 * Two generations bound the memory: when the current one is full it becomes the previous
 * one and the oldest is dropped whole, so no entry needs a clock or a list.
 */
final class RecentTokens {

	private final int generationSize;

	private volatile ConcurrentHashMap<Signed, String> current = new ConcurrentHashMap<>();

	private volatile ConcurrentHashMap<Signed, String> previous = new ConcurrentHashMap<>();

	private final AtomicInteger currentSize = new AtomicInteger();

	RecentTokens(int generationSize) {
		this.generationSize = generationSize;
	}

	String find(Signed signed) {
		String token = this.current.get(signed);
		return (token != null) ? token : this.previous.get(signed);
	}

	void remember(Signed signed, String token) {
		ConcurrentHashMap<Signed, String> generation = this.current;
		if (generation.putIfAbsent(signed, token) == null
				&& this.currentSize.incrementAndGet() >= this.generationSize) {
			startGeneration(generation);
		}
	}

	private synchronized void startGeneration(ConcurrentHashMap<Signed, String> full) {
		if (this.current == full) {
			this.previous = full;
			this.current = new ConcurrentHashMap<>();
			this.currentSize.set(0);
		}
	}

	/** Everything a token says, and the key that signs it. */
	record Signed(String kid, UUID leaseId, UUID itemId, long epoch, String workerId, Instant issuedAt,
			Instant expiresAt) {
	}

}
