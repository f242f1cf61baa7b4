package dev.workgraph.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import dev.workgraph.chaos.Client.Call;
import dev.workgraph.chaos.Client.Reply;
import dev.workgraph.chaos.History.Violation;
import tools.jackson.databind.JsonNode;

/**
 * One chaos scenario from start to verdict: a fresh database, the simulated workers and
 * operators on virtual threads, faults injected by a plan while the load runs, a drain
 * until every item is terminal, then the {@link HistoryChecker} and the database's own
 * evidence. Writes {@code report.txt} (and on failure {@code history.txt}, every
 * exchange) into the scenario's directory under {@code target/chaos}.
 */
final class ChaosRun {

	/**
	 * Wrong clocks of the workers that have one: an hour behind (never renews in time),
	 * an hour ahead (renews all the time), a few seconds behind (renews too late), a
	 * minute and a half ahead.
	 */
	private static final List<Duration> CLOCK_SKEWS = List.of(Duration.ofHours(-1), Duration.ofHours(1),
			Duration.ofSeconds(-4), Duration.ofSeconds(90));

	/** Injects faults while {@code loading} is true, using only {@code random}. */
	@FunctionalInterface
	interface FaultPlan {

		void inject(Faults faults, Random random, BooleanSupplier loading);

		FaultPlan NONE = (faults, random, loading) -> {
		};

	}

	private final String name;

	private final ChaosSettings settings;

	private final ChaosCluster cluster;

	private final Path directory;

	ChaosRun(String name, ChaosSettings settings, ChaosCluster cluster, Path directory) {
		this.name = name;
		this.settings = settings;
		this.cluster = cluster;
		this.directory = directory;
	}

	Result run(FaultPlan plan) {
		System.out.println("chaos " + this.name + ": seed=" + this.settings.seed() + " load=" + this.settings.load()
				+ " workers=" + this.settings.workers() + " (rerun this schedule with -Dchaos.seed="
				+ this.settings.seed() + ")");
		this.cluster.instances()
			.forEach((instance) -> System.out.println("chaos " + this.name + ": " + instance.name() + " on "
					+ instance.base() + " runs with " + instance.clock()));
		this.cluster.ensureRunning();
		this.cluster.reset();
		History history = new History();
		World world = new World();
		Tally tally = new Tally();
		Client client = new Client(this.cluster.instances(), history, this.settings.requestTimeout(),
				this.cluster.adminToken(), this.cluster.frontDoor());
		client.capQueues(World.CAPS);
		Random master = new Random(this.settings.seed());
		StreamSubscriber subscriber = new StreamSubscriber(this.cluster.instances(), changeHead(),
				this.cluster.adminToken(), new Random(master.nextLong()));
		Thread subscriberThread = Thread.ofVirtual().name("chaos-stream").start(subscriber);
		Monitor monitor = new Monitor(this.cluster, client, history, world);
		long started = System.nanoTime();
		Thread monitorThread = Thread.ofVirtual().name("chaos-monitor").start(monitor);
		List<Thread> actors = new ArrayList<>();
		for (int i = 0; i < this.settings.workers(); i++) {
			Duration skew = (i < this.settings.wrongClockWorkers()) ? CLOCK_SKEWS.get(i % CLOCK_SKEWS.size())
					: Duration.ZERO;
			SimulatedWorker worker = new SimulatedWorker(i, master.nextLong(), client, world, this.settings, tally,
					skew);
			actors.add(Thread.ofVirtual().name("worker-" + i).start(worker));
		}
		for (int i = 0; i < this.settings.streamWorkers(); i++) {
			StreamWorker worker = new StreamWorker(i, master.nextLong(), client, history, this.cluster.instances(),
					world, this.settings, tally);
			actors.add(Thread.ofVirtual().name("stream-worker-" + i).start(worker));
		}
		actors.add(Thread.ofVirtual()
			.name("planner")
			.start(new Planner(master.nextLong(), client, world, this.settings, tally)));
		actors.add(Thread.ofVirtual().name("responder").start(new Responder(master.nextLong(), client, world, tally)));
		actors.add(Thread.ofVirtual().name("signaller").start(new Signaller(master.nextLong(), client, world, tally)));
		Faults faults = new Faults(this.cluster, client, history, world, new Random(master.nextLong()), this.directory);
		Thread faultThread = Thread.ofVirtual()
			.name("faults")
			.start(() -> plan.inject(faults, new Random(this.settings.seed() ^ 0x5DEECE66DL), world::loading));

		ServiceInstance.sleep(this.settings.load().toMillis());
		// On a crowded machine the same time does less: extend the load (up to
		// three times) until the workload has done enough to prove something.
		long extendedUntil = started + 3 * this.settings.load().toNanos();
		while (tally.get("claims") < this.settings.minimumClaims() && System.nanoTime() < extendedUntil) {
			ServiceInstance.sleep(500);
		}
		world.phase(World.Phase.DRAIN);
		join(List.of(faultThread), Duration.ofMinutes(5));
		this.cluster.ensureRunning();
		long drainStarted = System.nanoTime();
		boolean drained = awaitDrain(history);
		long drainMillis = (System.nanoTime() - drainStarted) / 1_000_000;
		world.phase(World.Phase.STOP);
		join(actors, Duration.ofMinutes(2));
		monitor.stop();
		join(List.of(monitorThread), Duration.ofSeconds(30));
		long seconds = Math.round((System.nanoTime() - started) / 1e9);

		finalConsistencyAudits(client, history);
		awaitStream(subscriber);
		subscriber.stop();
		join(List.of(subscriberThread), Duration.ofSeconds(30));
		HistoryChecker checker = finalChecks(history, world, monitor);
		List<Violation> violations = new ArrayList<>(history.violations());
		violations.addAll(checker.violations());
		violations.addAll(streamChecks(subscriber));
		if (!drained) {
			violations.add(new Violation("4-drained-nothing-lost",
					"the drain did not finish within " + this.settings.drainTimeout()));
		}
		List<Exchange> exchanges = history.exchanges();
		Map<String, Long> figures = new LinkedHashMap<>();
		figures.put("seconds", seconds);
		figures.put("ops", exchanges.stream().filter((e) -> !e.op().entry()).count());
		figures.put("claims", exchanges.stream().filter((e) -> e.op() == Op.CLAIM && e.status() == 201).count());
		figures.put("batch_claims",
				exchanges.stream().filter((e) -> e.op() == Op.CLAIM_BATCH && e.status() == 201).count());
		figures.put("batch_completions",
				exchanges.stream().filter((e) -> e.op() == Op.COMPLETE_BATCH && e.status() == 200).count());
		figures.put("stream_claims",
				exchanges.stream().filter((e) -> e.op() == Op.STREAM_GRANT && e.status() == 201).count());
		figures.put("stream_completions",
				exchanges.stream()
					.filter((e) -> e.op() == Op.COMPLETE && e.method().equals("WS") && e.succeeded())
					.count());
		figures.put("stale_writes_rejected", exchanges.stream().filter(Exchange::staleRejection).count());
		figures.put("expiries", checker.figures().getOrDefault("expiries", 0L));
		figures.put("faults", (long) history.faults().size());
		figures.put("violations", violations.stream().filter((v) -> !v.invariant().equals("no-5xx")).count());
		figures.put("errors_5xx", history.errors5xx());
		Map<String, Long> details = new LinkedHashMap<>(checker.figures());
		details.put("leases_claimed_in_batches",
				exchanges.stream().filter((e) -> e.op() == Op.CLAIM_BATCH_ENTRY && e.status() == 201).count());
		details.put("batch_entries_completed",
				exchanges.stream().filter((e) -> e.op() == Op.COMPLETE_BATCH_ENTRY && e.succeeded()).count());
		details.put("batch_entries_refused_as_stale",
				exchanges.stream().filter((e) -> e.op() == Op.COMPLETE_BATCH_ENTRY && e.staleRejection()).count());
		details.put("stream_writes",
				exchanges.stream().filter((e) -> e.method().equals("WS") && e.op().leaseMutation()).count());
		details.put("stream_stale_writes_rejected",
				exchanges.stream().filter((e) -> e.method().equals("WS") && e.staleRejection()).count());
		details.put("stream_messages_unanswered",
				exchanges.stream()
					.filter((e) -> e.method().equals("WS") && e.op().leaseMutation() && e.unavailable())
					.count());
		details.put("stream_credits_outstanding_at_close",
				exchanges.stream().filter((e) -> e.op() == Op.STREAM_GRANT && e.unavailable()).count());
		details.putAll(operationFigures(exchanges));
		details.put("stale_writes_attempted_deliberately", tally.get("stale_writes_attempted"));
		details.put("stale_writes_accepted", exchanges.stream().filter((e) -> e.stale() && e.succeeded()).count());
		details.put("answers_503", exchanges.stream().filter((e) -> e.status() == 503).count());
		details.put("no_answer_connection_failed",
				exchanges.stream().filter((e) -> e.status() == Exchange.NO_ANSWER).count());
		details.put("timed_out", exchanges.stream().filter((e) -> e.status() == Exchange.TIMED_OUT).count());
		details.put("drain_millis", drainMillis);
		details.put("stream_lease_endings_received", (long) subscriber.received().size());
		details.put("stream_reconnects", (long) subscriber.reconnects());
		details.put("stream_hang_ups", (long) subscriber.hangUps());
		details.put("history_snapshots_compared", monitor.snapshots());
		details.put("consistency_audits_passed", monitor.auditsPassed());
		tally.snapshot().forEach((key, value) -> details.put("actors_" + key, value));
		List<RecoveryTimeline> recoveries = new ArrayList<>();
		List<History.Fault> injected = history.faults();
		for (int i = 0; i < injected.size(); i++) {
			if (injected.get(i).resumedNanos != 0) {
				long until = (i + 1 < injected.size()) ? injected.get(i + 1).startNanos
						: injected.get(i).resumedNanos + Duration.ofHours(1).toNanos();
				recoveries.add(RecoveryTimeline.of(injected.get(i), until, exchanges));
			}
		}
		Result result = new Result(this.name, this.settings.seed(), figures, details, violations, history.faults(),
				recoveries, this.directory.resolve("report.txt"));
		writeReport(result, exchanges, statusCounts(exchanges));
		System.out.println(result.summary("chaos " + this.name));
		return result;
	}

	/**
	 * How often checkpoints, failures, waits, events and handoffs were acknowledged (and
	 * how often a stale one was refused), so that a scenario can show it exercised them.
	 */
	static Map<String, Long> operationFigures(List<Exchange> exchanges) {
		Map<String, Long> figures = new LinkedHashMap<>();
		for (Op op : List.of(Op.CHECKPOINT, Op.FAIL, Op.WAIT, Op.HANDOFF, Op.EVENT)) {
			String name = op.name().toLowerCase(java.util.Locale.ROOT);
			figures.put(name + "s_acknowledged",
					exchanges.stream().filter((e) -> e.op() == op && e.succeeded()).count());
			if (op.leaseMutation()) {
				figures.put(name + "s_refused_as_stale",
						exchanges.stream().filter((e) -> e.op() == op && e.stale() && e.staleRejection()).count());
			}
		}
		figures.put("events_seen_before",
				exchanges.stream().filter((e) -> e.op() == Op.EVENT && e.status() == 200).count());
		figures.put("waits_matched_at_once",
				exchanges.stream()
					.filter((e) -> e.op() == Op.WAIT && e.succeeded() && "matched".equals(e.facts().waitStatus()))
					.count());
		figures.put("waits_matched_by_arriving_events",
				exchanges.stream()
					.filter((e) -> e.op() == Op.EVENT && e.status() == 202 && e.facts().matchedWaits() != null)
					.mapToLong((e) -> e.facts().matchedWaits())
					.sum());
		figures.put("notbefore_answers",
				exchanges.stream().filter((e) -> e.succeeded() && e.facts().notBefore() != null).count());
		java.util.Set<UUID> handedLeases = exchanges.stream()
			.filter((e) -> e.op() == Op.HANDOFF_GRANT && e.status() == 201)
			.map(Exchange::leaseId)
			.collect(Collectors.toSet());
		figures.put("writes_accepted_from_successors",
				exchanges.stream()
					.filter((e) -> e.op().leaseMutation() && e.succeeded() && handedLeases.contains(e.leaseId()))
					.count());
		return figures;
	}

	/** The last seq the change stream handed out. */
	private long changeHead() {
		try (Connection connection = this.cluster.connect();
				Statement statement = connection.createStatement();
				var rs = statement.executeQuery("select coalesce(max(last_seq), 0) from change_counter")) {
			rs.next();
			return rs.getLong(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the change counter: " + ex.getMessage(), ex);
		}
	}

	/** Changes not yet published, and the seq of the last lease ending published. */
	private static final String LAST_LEASE_ENDING = """
			select (select count(*) from change_pending),
			       (select coalesce(max(seq), 0) from changes where type = 'lease.ended')
			""";

	/**
	 * Waits until every change is published and the subscriber has received the last
	 * lease ending (or a minute passed: the checker then says what is missing).
	 */
	private void awaitStream(StreamSubscriber subscriber) {
		long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
		while (System.nanoTime() < deadline) {
			try (Connection connection = this.cluster.connect();
					Statement statement = connection.createStatement();
					var rs = statement.executeQuery(LAST_LEASE_ENDING)) {
				rs.next();
				if (rs.getLong(1) == 0 && subscriber.lastSeq() >= rs.getLong(2)) {
					return;
				}
			}
			catch (SQLException ex) {
				// Try again.
			}
			ServiceInstance.sleep(200);
		}
	}

	private List<Violation> streamChecks(StreamSubscriber subscriber) {
		try (Connection connection = this.cluster.connect()) {
			return StreamChecker.check(subscriber.received(), ServerHistory.leases(connection));
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the database for the stream's check: " + ex.getMessage(),
					ex);
		}
	}

	/** Waits until every item is terminal and no lease is active. */
	private boolean awaitDrain(History history) {
		long deadline = System.nanoTime() + this.settings.drainTimeout().toNanos();
		while (System.nanoTime() < deadline) {
			try (Connection connection = this.cluster.connect()) {
				if (ServerHistory.openItems(connection) == 0 && activeLeases(connection) == 0) {
					return true;
				}
			}
			catch (SQLException ex) {
				// The cluster may be restarting; try again.
			}
			ServiceInstance.sleep(500);
		}
		return false;
	}

	private static long activeLeases(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				var rs = statement.executeQuery("select count(*) from leases")) {
			rs.next();
			return rs.getLong(1);
		}
	}

	/**
	 * The service's own from-scratch audit, on every instance, once everything is quiet.
	 */
	private void finalConsistencyAudits(Client client, History history) {
		for (int i = 0; i < this.cluster.instances().size(); i++) {
			Reply audit = client.send(Call.get("checker", Op.READ, "/actuator/consistency").on(i));
			if (audit.status() != 200 || !audit.body().path("consistent").asBoolean(false)) {
				history.violation("5-readiness", "the consistency audit of instance-" + i + " answered "
						+ audit.status() + ": " + History.abbreviate(audit.body().toString()));
			}
		}
	}

	private HistoryChecker finalChecks(History history, World world, Monitor monitor) {
		try (Connection connection = this.cluster.connect()) {
			monitor.compareHistory(connection);
			for (String problem : ServerHistory.recountDisagreements(connection)) {
				history.violation("5-readiness", problem);
			}
			historyRefusesChanges(connection, history);
			return new HistoryChecker(history.exchanges(), ServerHistory.leases(connection),
					ServerHistory.items(connection), ServerHistory.attentionRequests(connection),
					ServerHistory.operations(connection), world)
				.check();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the database for the final checks: " + ex.getMessage(), ex);
		}
	}

	/** The database itself refuses to change or remove a lease history row. */
	private static void historyRefusesChanges(Connection connection, History history) throws SQLException {
		for (String change : List.of(
				"update lease_history set reason = 'rewritten' where lease_id = (select lease_id from lease_history limit 1)",
				"delete from lease_history where lease_id = (select lease_id from lease_history limit 1)")) {
			connection.setAutoCommit(false);
			try (Statement statement = connection.createStatement()) {
				int changed = statement.executeUpdate(change);
				if (changed > 0) {
					history.violation("3-one-outcome", "lease_history accepted: " + change);
				}
			}
			catch (SQLException expected) {
				// Refused by the append-only trigger, as it must be.
			}
			finally {
				connection.rollback();
				connection.setAutoCommit(true);
			}
		}
	}

	private static Map<String, Long> statusCounts(List<Exchange> exchanges) {
		return exchanges.stream()
			.collect(Collectors.groupingBy(
					(e) -> e.op() + " " + e.statusText() + ((e.code() != null) ? " " + e.code() : ""),
					java.util.TreeMap::new, Collectors.counting()));
	}

	private void writeReport(Result result, List<Exchange> exchanges, Map<String, Long> statuses) {
		StringBuilder report = new StringBuilder();
		report.append("chaos scenario ")
			.append(this.name)
			.append(" finished ")
			.append(Instant.now())
			.append('\n')
			.append("seed ")
			.append(result.seed())
			.append(" (rerun with -Dchaos.seed=")
			.append(result.seed())
			.append(")\n")
			.append("settings ")
			.append(this.settings)
			.append('\n');
		this.cluster.instances()
			.forEach((instance) -> report.append(instance.name())
				.append(" clock: ")
				.append(instance.clock())
				.append('\n'));
		report.append('\n').append(result.summary("summary")).append("\n\nfigures\n");
		result.details()
			.forEach((key, value) -> report.append("  ").append(key).append(' ').append(value).append('\n'));
		report.append("\nanswers by operation\n");
		statuses.forEach((key, value) -> report.append("  ").append(key).append(": ").append(value).append('\n'));
		report.append("\nfaults\n");
		result.faults().forEach((fault) -> report.append("  ").append(fault).append('\n'));
		if (!result.recoveries().isEmpty()) {
			report.append("\nafter each disruption ended (answers by the second they arrived in)\n");
			result.recoveries().forEach((recovery) -> report.append(recovery.describe()));
		}
		report.append("\nviolations (").append(result.violations().size()).append(")\n");
		result.violations().forEach((violation) -> report.append("  ").append(violation).append('\n'));
		try {
			Files.createDirectories(this.directory);
			Files.writeString(result.report(), report, StandardCharsets.UTF_8);
			if (!result.violations().isEmpty() || Boolean.getBoolean("chaos.keepHistory")) {
				Files.write(this.directory.resolve("history.txt"), exchanges.stream().map(Exchange::toString).toList(),
						StandardCharsets.UTF_8);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void join(List<Thread> threads, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		for (Thread thread : threads) {
			try {
				thread.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/**
	 * The verdict of a run: the summary figures, more detailed figures for the report,
	 * every violation and fault, and what the actors saw after each disruption ended.
	 */
	record Result(String name, long seed, Map<String, Long> figures, Map<String, Long> details,
			List<Violation> violations, List<History.Fault> faults, List<RecoveryTimeline> recoveries, Path report) {

		/** {@code <prefix>: seconds=N ops=N claims=N … errors_5xx=N}. */
		String summary(String prefix) {
			return prefix + ": "
					+ this.figures.entrySet()
						.stream()
						.map((entry) -> entry.getKey() + "=" + entry.getValue())
						.collect(Collectors.joining(" "));
		}

		boolean passed() {
			return this.violations.isEmpty();
		}

		/**
		 * The failure message: the first violations, the seed, where the full report is.
		 */
		String failure() {
			StringBuilder message = new StringBuilder();
			message.append("Chaos scenario '")
				.append(this.name)
				.append("' broke ")
				.append(this.violations.size())
				.append(" invariant check(s). Seed ")
				.append(this.seed)
				.append(" (rerun with -Dchaos.seed=")
				.append(this.seed)
				.append("); full report: ")
				.append(this.report)
				.append('\n');
			this.violations.stream()
				.limit(30)
				.forEach((violation) -> message.append("  ").append(violation).append('\n'));
			if (this.violations.size() > 30) {
				message.append("  … and ").append(this.violations.size() - 30).append(" more in the report\n");
			}
			return message.toString();
		}

	}

	/**
	 * Watches the run from the side: keeps the planner's count of open items fresh,
	 * snapshots lease history to prove that no row ever changes or disappears (a
	 * PostgreSQL crash included), and runs the service's consistency audit under load.
	 */
	static final class Monitor implements Runnable {

		private final ChaosCluster cluster;

		private final Client client;

		private final History history;

		private final World world;

		private final Map<UUID, String> seenHistory = new HashMap<>();

		private volatile boolean running = true;

		private long snapshots;

		private long auditsPassed;

		Monitor(ChaosCluster cluster, Client client, History history, World world) {
			this.cluster = cluster;
			this.client = client;
			this.history = history;
			this.world = world;
		}

		@Override
		public void run() {
			long tick = 0;
			while (this.running) {
				try (Connection connection = this.cluster.connect()) {
					while (this.running) {
						this.world.openItems(ServerHistory.openItems(connection));
						if (tick % 5 == 0) {
							compareHistory(connection);
						}
						if (tick % 7 == 3 && this.world.loading()) {
							audit((int) (tick / 7));
						}
						tick++;
						ServiceInstance.sleep(1000);
					}
				}
				catch (SQLException ex) {
					// PostgreSQL is restarting: look again in a moment.
					ServiceInstance.sleep(1000);
				}
			}
		}

		void stop() {
			this.running = false;
		}

		long snapshots() {
			return this.snapshots;
		}

		long auditsPassed() {
			return this.auditsPassed;
		}

		/** Every lease history row seen before is still there, unchanged. */
		synchronized void compareHistory(Connection connection) throws SQLException {
			Map<UUID, String> now = ServerHistory.historyFingerprint(connection);
			int reported = 0;
			for (Map.Entry<UUID, String> row : this.seenHistory.entrySet()) {
				String current = now.get(row.getKey());
				if (!row.getValue().equals(current) && reported++ < 20) {
					this.history.violation("3-history-immutable",
							"lease history row " + row.getKey() + ((current == null) ? " disappeared" : " changed"));
				}
			}
			this.seenHistory.putAll(now);
			this.snapshots++;
		}

		private void audit(int round) {
			Reply audit = this.client.send(Call.get("monitor", Op.READ, "/actuator/consistency").on(round));
			if (audit.status() != 200) {
				return;
			}
			JsonNode body = audit.body();
			if (body.path("consistent").asBoolean(false)) {
				this.auditsPassed++;
			}
			else {
				this.history.violation("5-readiness",
						"the consistency audit under load found: " + History.abbreviate(body.toString()));
			}
		}

	}

}
