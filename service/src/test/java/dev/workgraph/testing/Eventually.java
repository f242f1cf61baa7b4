package dev.workgraph.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Waiting in a test for something another thread or process brings about. */
public final class Eventually {

	private Eventually() {
	}

	/**
	 * Returns once the condition holds, checking it every {@code every}; fails the test
	 * when it still does not hold after {@code within}.
	 */
	public static void until(String what, Duration within, Duration every, BooleanSupplier condition) {
		long deadline = System.nanoTime() + within.toNanos();
		while (!condition.getAsBoolean()) {
			assertThat(System.nanoTime() - deadline).as("waited %s for %s", within, what).isNegative();
			try {
				Thread.sleep(every);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("interrupted while waiting for " + what, ex);
			}
		}
	}

}
