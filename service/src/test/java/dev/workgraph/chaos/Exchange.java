package dev.workgraph.chaos;

import java.time.Instant;
import java.util.UUID;

/**
 * One request and its answer as the client saw them. Times are the client's monotonic
 * clock ({@code System.nanoTime}, comparable across all simulated workers because they
 * share this JVM) plus the wall time of sending, for reports. {@code status} is the HTTP
 * status, {@link #NO_ANSWER} when the connection failed and {@link #TIMED_OUT} when no
 * answer came within the client's timeout. Each entry of a batch ({@link Op#entry()}) is
 * an exchange of its own too, with the batch's times and the entry's own answer.
 *
 * @param leaseId the lease presented (lease mutations) or granted (claims)
 * @param itemId the item the request was about, or the item claimed
 * @param epoch the epoch presented (lease mutations) or granted (claims)
 * @param stale the worker knew the lease was dead or the epoch wrong when it sent this
 * @param token the unique token in the titles of items this request creates
 * @param outcome the outcome of the lease in the answer, if any
 */
record Exchange(long seq, String actor, Op op, int instance, String method, String path, UUID leaseId, UUID itemId,
		Long epoch, boolean stale, String token, long sentNanos, long receivedNanos, Instant sentAt, int status,
		String code, String outcome, String failure) {

	static final int NO_ANSWER = 0;

	static final int TIMED_OUT = -1;

	boolean succeeded() {
		return this.op.succeeded(this.status);
	}

	/** Connection failure, timeout or a 503: the request may or may not have happened. */
	boolean unavailable() {
		return this.status == NO_ANSWER || this.status == TIMED_OUT || this.status == 503;
	}

	boolean staleRejection() {
		return this.status == 409 && Op.STALE_LEASE_CODES.contains(this.code);
	}

	double millis() {
		return (this.receivedNanos - this.sentNanos) / 1e6;
	}

	@Override
	public String toString() {
		return "#" + this.seq + " " + this.sentAt + " " + this.actor + " " + this.method + " " + this.path + " via i"
				+ this.instance + ((this.epoch != null) ? " epoch=" + this.epoch : "") + (this.stale ? " [stale]" : "")
				+ " -> " + statusText() + ((this.code != null) ? " " + this.code : "")
				+ ((this.outcome != null) ? " outcome=" + this.outcome : "")
				+ ((this.failure != null) ? " (" + this.failure + ")" : "") + " in " + Math.round(millis()) + " ms";
	}

	String statusText() {
		return switch (this.status) {
			case NO_ANSWER -> "no-answer";
			case TIMED_OUT -> "timed-out";
			default -> Integer.toString(this.status);
		};
	}

}
