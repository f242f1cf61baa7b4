package dev.workgraph.client.worker;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.workgraph.client.Item;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.problem.WorkGraphException;

/**
 * A handler's failure, as a {@link FailurePolicy} sees it: the lease, the exception, and
 * how often handlers failed on this item just before (read from the item's lease history,
 * across all workers, only when asked).
 */
public final class HandlerFailure {

	/** How a release made by the default policies starts; they count such releases. */
	public static final String REASON_PREFIX = "handler failed: ";

	private static final int MAX_REASON = 2000;

	private final LeaseContext lease;

	private final Throwable exception;

	private Integer earlierFailures;

	HandlerFailure(LeaseContext lease, Throwable exception) {
		this.lease = lease;
		this.exception = exception;
	}

	public LeaseContext lease() {
		return this.lease;
	}

	public Throwable exception() {
		return this.exception;
	}

	/**
	 * The item as the claim (or the last write) showed it: {@code attempts()} counts its
	 * earlier failed or expired leases, {@code retry()} is its policy and
	 * {@code attemptsLeft()} what the service still allows, counting this one.
	 */
	public Item item() {
		return this.lease.item();
	}

	/**
	 * The error a failure reports to the service: the exception's type and message and
	 * this worker's id.
	 */
	public Map<String, Object> error() {
		Map<String, Object> error = new LinkedHashMap<>();
		error.put("exception", this.exception.getClass().getName());
		error.put("message", String.valueOf(this.exception.getMessage()));
		error.put("workerId", this.lease.workerId());
		return error;
	}

	/** {@code handler failed: <exception type>: <message>}, short enough for a reason. */
	public String summary() {
		String message = this.exception.getMessage();
		String text = REASON_PREFIX + this.exception.getClass().getSimpleName()
				+ ((message != null) ? ": " + message : "");
		return (text.codePointCount(0, text.length()) > MAX_REASON)
				? text.substring(0, text.offsetByCodePoints(0, MAX_REASON - 1)) + "…" : text;
	}

	/**
	 * How many leases of this item ended, one right after the other and just before this
	 * one, by a release for a handler failure (any worker's). Zero if the history cannot
	 * be read.
	 */
	public synchronized int earlierFailures() {
		if (this.earlierFailures == null) {
			this.earlierFailures = countEarlierFailures();
		}
		return this.earlierFailures;
	}

	private int countEarlierFailures() {
		List<Lease> history;
		try {
			history = this.lease.client().leasesOfItem(this.lease.item().id());
		}
		catch (WorkGraphException ex) {
			return 0;
		}
		int failures = 0;
		for (int i = history.size() - 1; i >= 0; i--) {
			Lease earlier = history.get(i);
			if (earlier.epoch() >= this.lease.epoch()) {
				continue;
			}
			boolean failed = earlier.outcome() == LeaseOutcome.RELEASED && earlier.reason() != null
					&& earlier.reason().startsWith(REASON_PREFIX);
			if (!failed) {
				break;
			}
			failures++;
		}
		return failures;
	}

}
