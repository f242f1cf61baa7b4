package dev.workgraph.sql;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Time-ordered UUIDs (RFC 9562 version 7). Ids created later by this process compare
 * greater, so keyset pagination by id follows creation order and items made in one
 * transaction (which share {@code now()}) still have a stable claim order.
 */
public final class Uuid7 {

	private static final int SEQUENCE_BITS = 12;

	/**
	 * Unix milliseconds shifted left by 12, plus a 12-bit sequence within the
	 * millisecond.
	 */
	private static final AtomicLong lastTimeAndSequence = new AtomicLong();

	private Uuid7() {
	}

	public static UUID next() {
		long candidate = System.currentTimeMillis() << SEQUENCE_BITS;
		long timeAndSequence = lastTimeAndSequence.updateAndGet((last) -> Math.max(candidate, last + 1));
		long millis = timeAndSequence >>> SEQUENCE_BITS;
		long sequence = timeAndSequence & ((1L << SEQUENCE_BITS) - 1);
		long mostSignificant = (millis << 16) | 0x7000L | sequence;
		long leastSignificant = (ThreadLocalRandom.current().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
		return new UUID(mostSignificant, leastSignificant);
	}

}
