package dev.workgraph.chaos;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the actors saw after a disruption ended ({@link History.Fault#resumedNanos}, e.g.
 * PostgreSQL accepting connections again): when a claim was granted and a lease completed
 * again, when the last request failed for want of the service, and every answer by
 * second. Times are milliseconds after the disruption ended, by when the answer arrived.
 *
 * @param firstClaimMillis the first claim granted (alone or in a batch) after it, -1 for
 * none
 * @param firstCompletionMillis the first completion accepted after it, -1 for none
 * @param lastUnavailableMillis the last answer that was a 503, a failed connection or a
 * timeout, -1 for none after it
 */
record RecoveryTimeline(String fault, long firstClaimMillis, long firstCompletionMillis, long lastUnavailableMillis,
		Map<Long, Map<String, Integer>> bySecond) {

	private static final Set<Op> CLAIMS = EnumSet.of(Op.CLAIM, Op.CLAIM_BATCH_ENTRY);

	private static final Set<Op> COMPLETIONS = EnumSet.of(Op.COMPLETE, Op.COMPLETE_BATCH_ENTRY);

	/** The seconds after the disruption the report lists answers for. */
	private static final long SECONDS_LISTED = 40;

	/**
	 * The timeline of {@code fault} from the exchanges answered after it ended and before
	 * {@code untilNanos} (the next fault's start: what follows is that one's).
	 */
	static RecoveryTimeline of(History.Fault fault, long untilNanos, List<Exchange> exchanges) {
		long since = fault.resumedNanos;
		long firstClaim = -1;
		long firstCompletion = -1;
		long lastUnavailable = -1;
		Map<Long, Map<String, Integer>> bySecond = new TreeMap<>();
		for (Exchange exchange : exchanges) {
			long millis = (exchange.receivedNanos() - since) / 1_000_000;
			if (millis < 0 || exchange.receivedNanos() - untilNanos >= 0) {
				continue;
			}
			if (CLAIMS.contains(exchange.op()) && exchange.status() == 201 && (firstClaim < 0 || millis < firstClaim)) {
				firstClaim = millis;
			}
			if (COMPLETIONS.contains(exchange.op()) && exchange.status() == 200
					&& (firstCompletion < 0 || millis < firstCompletion)) {
				firstCompletion = millis;
			}
			if (exchange.unavailable() && !exchange.op().entry()) {
				lastUnavailable = Math.max(lastUnavailable, millis);
			}
			if (millis / 1000 < SECONDS_LISTED && !exchange.op().entry()) {
				String answer = exchange.unavailable()
						? exchange.statusText() + ((exchange.code() != null) ? " " + exchange.code() : "") : "answered";
				bySecond.computeIfAbsent(millis / 1000, (second) -> new TreeMap<>()).merge(answer, 1, Integer::sum);
			}
		}
		return new RecoveryTimeline(fault.name, firstClaim, firstCompletion, lastUnavailable, bySecond);
	}

	/** The report's lines: the summary, then one line per second. */
	String describe() {
		StringBuilder text = new StringBuilder();
		text.append("  ")
			.append(this.fault)
			.append(": first claim granted ")
			.append(this.firstClaimMillis)
			.append(" ms, first completion ")
			.append(this.firstCompletionMillis)
			.append(" ms, last unavailable answer ")
			.append(this.lastUnavailableMillis)
			.append(" ms after it ended\n");
		this.bySecond.forEach(
				(second, answers) -> text.append("    +").append(second).append(" s: ").append(answers).append('\n'));
		return text.toString();
	}

}
