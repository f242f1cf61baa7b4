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
 * @param facts what a successful answer said that the checker judges beyond the lease
 * (checkpoints, scheduled times, events, waits); {@link Facts#NONE} otherwise
 */
record Exchange(long seq, String actor, Op op, int instance, String method, String path, UUID leaseId, UUID itemId,
		Long epoch, boolean stale, String token, long sentNanos, long receivedNanos, Instant sentAt, int status,
		String code, String outcome, String failure, Facts facts) {

	static final int NO_ANSWER = 0;

	static final int TIMED_OUT = -1;

	Exchange {
		facts = (facts != null) ? facts : Facts.NONE;
	}

	Exchange(long seq, String actor, Op op, int instance, String method, String path, UUID leaseId, UUID itemId,
			Long epoch, boolean stale, String token, long sentNanos, long receivedNanos, Instant sentAt, int status,
			String code, String outcome, String failure) {
		this(seq, actor, op, instance, method, path, leaseId, itemId, epoch, stale, token, sentNanos, receivedNanos,
				sentAt, status, code, outcome, failure, Facts.NONE);
	}

	/** The same exchange with these facts. */
	Exchange with(Facts facts) {
		return new Exchange(this.seq, this.actor, this.op, this.instance, this.method, this.path, this.leaseId,
				this.itemId, this.epoch, this.stale, this.token, this.sentNanos, this.receivedNanos, this.sentAt,
				this.status, this.code, this.outcome, this.failure, facts);
	}

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
				+ (this.facts.equals(Facts.NONE) ? "" : " " + this.facts)
				+ ((this.failure != null) ? " (" + this.failure + ")" : "") + " in " + Math.round(millis()) + " ms";
	}

	String statusText() {
		return switch (this.status) {
			case NO_ANSWER -> "no-answer";
			case TIMED_OUT -> "timed-out";
			default -> Integer.toString(this.status);
		};
	}

	/**
	 * What an answer said beyond the lease, as the checker needs it; null where the
	 * operation says nothing of it.
	 *
	 * @param checkpointSeq a checkpoint's answer: the seq it was saved as; a grant's
	 * answer: the seq of the item's latest checkpoint it showed (0 when none)
	 * @param notBefore the item's {@code notBefore} in a create's, release's or failure's
	 * answer, in microseconds since the epoch on PostgreSQL's clock
	 * @param eventId an event's answer: the stored event's id; a wait's answer: the id of
	 * the event that matched it at once
	 * @param matchedWaits an event's answer: the waits it matched
	 * @param waitId a wait's answer: the wait's id
	 * @param waitStatus a wait's answer: {@code open}, or {@code matched} at once
	 */
	record Facts(Long checkpointSeq, Long notBefore, UUID eventId, Integer matchedWaits, UUID waitId,
			String waitStatus) {

		static final Facts NONE = new Facts(null, null, null, null, null, null);

		static Facts checkpoint(Long seq) {
			return new Facts(seq, null, null, null, null, null);
		}

		static Facts notBefore(Long micros) {
			return new Facts(null, micros, null, null, null, null);
		}

		static Facts event(UUID eventId, int matchedWaits) {
			return new Facts(null, null, eventId, matchedWaits, null, null);
		}

		static Facts waited(UUID waitId, String status, UUID matchedBy) {
			return new Facts(null, null, matchedBy, null, waitId, status);
		}

		@Override
		public String toString() {
			StringBuilder text = new StringBuilder();
			append(text, "checkpointSeq", this.checkpointSeq);
			append(text, "notBefore", this.notBefore);
			append(text, "eventId", this.eventId);
			append(text, "matchedWaits", this.matchedWaits);
			append(text, "wait", this.waitId);
			append(text, "waitStatus", this.waitStatus);
			return text.toString().strip();
		}

		private static void append(StringBuilder text, String name, Object value) {
			if (value != null) {
				text.append(' ').append(name).append('=').append(value);
			}
		}

	}

}
