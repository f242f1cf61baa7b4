package dev.workgraph.chaos;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Everything that happened in a run, in the order it was recorded: every request and
 * answer, the faults injected, and the violations found while recording (an answer that
 * breaks the HTTP contract on its own, whatever else happened).
 */
final class History {

	/**
	 * Text that must never reach a client: class names, stack frames, SQL states, driver
	 * messages.
	 */
	private static final Pattern INTERNALS = Pattern.compile(
			"Exception|\\bat [a-z]+\\.[a-z]|\\bjava\\.|\\borg\\.(springframework|postgresql|apache|hibernate)|SQLState|"
					+ "\\bSQL\\b|\\bERROR:|hikari|jdbc:",
			Pattern.CASE_INSENSITIVE);

	private final AtomicLong sequence = new AtomicLong();

	private final Queue<Exchange> exchanges = new ConcurrentLinkedQueue<>();

	private final List<Violation> violations = Collections.synchronizedList(new ArrayList<>());

	private final List<Fault> faults = Collections.synchronizedList(new ArrayList<>());

	private final AtomicLong errors5xx = new AtomicLong();

	long nextSeq() {
		return this.sequence.incrementAndGet();
	}

	/**
	 * Records an exchange and checks what can be checked from the answer alone: no 5xx
	 * other than a clean 503 problem, every error a problem with a stable code and no
	 * internals, an answer within the client's timeout, and a status this operation can
	 * legitimately get.
	 */
	void record(Exchange exchange, String contentType, String body) {
		judge(exchange, contentType != null && contentType.startsWith("application/problem+json"), body);
	}

	/**
	 * Records one entry of a batch (see {@link Op#entry()}) and checks it as the single
	 * request it stands for: its status and code are the entry's own, and a failed
	 * entry's {@code problem} (a member of the batch's JSON answer, not a response of its
	 * own) must carry a code and no internals.
	 */
	void recordEntry(Exchange entry, String problem) {
		judge(entry, true, problem);
	}

	/**
	 * Records a worker stream's message: a write and its {@code answer} (a refusal
	 * carries its problem as a member, {@code problem}), or a pushed lease. Checked
	 * exactly as the HTTP request it stands for.
	 */
	void recordMessage(Exchange exchange, String problem) {
		judge(exchange, true, problem);
	}

	private void judge(Exchange exchange, boolean problem, String body) {
		this.exchanges.add(exchange);
		int status = exchange.status();
		if (status == Exchange.TIMED_OUT) {
			violation("no-hang", "no answer within the client's timeout: " + exchange);
			return;
		}
		if (status == Exchange.NO_ANSWER) {
			return;
		}
		if (status >= 400) {
			if (!problem || exchange.code() == null) {
				violation("problem-format",
						"error without a problem body and code: " + exchange + " body=" + abbreviate(body));
			}
			if (body != null && INTERNALS.matcher(body).find()) {
				violation("no-internals", "error body leaks internals: " + exchange + " body=" + abbreviate(body));
			}
		}
		if (status >= 500) {
			if (status != 503 || !"service_unavailable".equals(exchange.code())) {
				this.errors5xx.incrementAndGet();
				violation("no-5xx", exchange + " body=" + abbreviate(body));
			}
			return;
		}
		// With access control on, a worker's later incarnation is another worker: a stale
		// write it sends on its predecessor's lease is refused as someone else's lease
		// (403
		// forbidden, checked before fencing, nothing written), which is as safe as a 409.
		boolean anotherWorkersLease = exchange.stale() && exchange.op().leaseMutation()
				&& "forbidden".equals(exchange.code());
		if (!exchange.succeeded() && !exchange.op().expectedRejection(exchange.code()) && !anotherWorkersLease) {
			violation("expected-answers",
					"answer this request can never legitimately get: " + exchange + " body=" + abbreviate(body));
		}
		if (exchange.stale() && exchange.succeeded()) {
			violation("stale-write-accepted",
					"a write the worker knew to be stale (dead lease or wrong epoch) was accepted: " + exchange);
		}
	}

	void violation(String invariant, String detail) {
		this.violations.add(new Violation(invariant, detail));
	}

	Fault faultStarted(String name) {
		Fault fault = new Fault(name, Instant.now(), System.nanoTime());
		this.faults.add(fault);
		return fault;
	}

	List<Exchange> exchanges() {
		List<Exchange> all = new ArrayList<>(this.exchanges);
		all.sort(Comparator.comparingLong(Exchange::seq));
		return all;
	}

	List<Violation> violations() {
		synchronized (this.violations) {
			return List.copyOf(this.violations);
		}
	}

	List<Fault> faults() {
		synchronized (this.faults) {
			return List.copyOf(this.faults);
		}
	}

	long errors5xx() {
		return this.errors5xx.get();
	}

	static String abbreviate(String text) {
		if (text == null) {
			return "";
		}
		String flat = text.replace('\n', ' ');
		return (flat.length() <= 300) ? flat : flat.substring(0, 300) + "…";
	}

	/** A broken invariant, named after it, with enough detail to find it in the log. */
	record Violation(String invariant, String detail) {

		@Override
		public String toString() {
			return "[" + this.invariant + "] " + this.detail;
		}

	}

	/** A fault injected into the run; {@code note} says how it went. */
	static final class Fault {

		final String name;

		final Instant startedAt;

		final long startNanos;

		volatile long endNanos;

		/**
		 * When the disruption itself was over (PostgreSQL accepting connections again),
		 * System.nanoTime; 0 for a fault that does not say.
		 */
		volatile long resumedNanos;

		/**
		 * Milliseconds from {@link #resumedNanos} until every live instance answered
		 * normally again; -1 when not measured or never.
		 */
		volatile long recoveredMillis = -1;

		volatile String note = "";

		Fault(String name, Instant startedAt, long startNanos) {
			this.name = name;
			this.startedAt = startedAt;
			this.startNanos = startNanos;
		}

		void ended(String note) {
			this.endNanos = System.nanoTime();
			this.note = note;
		}

		@Override
		public String toString() {
			return this.startedAt + " " + this.name + " (" + Math.round((this.endNanos - this.startNanos) / 1e6)
					+ " ms) " + this.note;
		}

	}

}
