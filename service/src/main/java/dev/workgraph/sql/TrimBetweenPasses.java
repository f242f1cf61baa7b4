package dev.workgraph.sql;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.IntSupplier;

/**
 * A trim of old rows that a background loop runs a batch at a time between its own
 * passes: due every {@code interval}, then one batch after each pass until a batch comes
 * back short. A whole backlog trimmed in one go held up the loop's real work (numbering
 * changes, delivering webhooks) for as long as it took. Not thread-safe: one loop owns
 * it.
 */
public final class TrimBetweenPasses {

	private final Duration interval;

	private final int batch;

	private final IntSupplier trimBatch;

	private final InstantSource clock;

	private Instant next = Instant.EPOCH;

	private boolean underWay;

	/**
	 * @param trimBatch trims at most {@code batch} rows in a transaction of its own and
	 * answers how many
	 */
	public TrimBetweenPasses(Duration interval, int batch, IntSupplier trimBatch) {
		this(interval, batch, trimBatch, InstantSource.system());
	}

	TrimBetweenPasses(Duration interval, int batch, IntSupplier trimBatch, InstantSource clock) {
		this.interval = interval;
		this.batch = batch;
		this.trimBatch = trimBatch;
		this.clock = clock;
	}

	/** Trims one batch if a trim is due or under way. */
	public void step() {
		if (!this.underWay && this.clock.instant().isAfter(this.next)) {
			this.underWay = true;
		}
		if (this.underWay && this.trimBatch.getAsInt() < this.batch) {
			this.underWay = false;
			this.next = this.clock.instant().plus(this.interval);
		}
	}

}
