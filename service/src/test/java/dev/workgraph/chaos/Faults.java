package dev.workgraph.chaos;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLongArray;

import dev.workgraph.chaos.Client.Call;
import dev.workgraph.chaos.Client.Reply;
import dev.workgraph.chaos.History.Fault;

/**
 * The faults a run can inject, each ending with proof that the service came back by
 * itself: SIGKILL of a service instance and its restart, a PostgreSQL restart (clean or
 * crash), and an exhausted connection pool.
 */
final class Faults {

	private static final long RECOVERY_MILLIS = 60_000;

	/**
	 * An instance not answering normally this long after a disruption is slow (half the
	 * 10 s that ManyInstancesTests allows behind PgBouncer): its threads and the
	 * database's sessions are recorded then, while it waits.
	 */
	private static final long SLOW_RECOVERY_MILLIS = 5_000;

	private final ChaosCluster cluster;

	private final Client client;

	private final History history;

	private final World world;

	private final Random random;

	/** The run's directory, where thread dumps of slowly recovering instances go. */
	private final Path reports;

	Faults(ChaosCluster cluster, Client client, History history, World world, Random random, Path reports) {
		this.cluster = cluster;
		this.reports = reports;
		this.client = client;
		this.history = history;
		this.world = world;
		this.random = random;
	}

	/**
	 * SIGKILL one instance mid-load, leave it down a moment, start it again. Its open
	 * transactions die with it; the other instance carries on.
	 */
	void killInstance(int index) {
		ServiceInstance instance = this.cluster.instances().get(index);
		Fault fault = this.history.faultStarted("kill -9 " + instance.name());
		instance.kill();
		long down = 500 + this.random.nextInt(2500);
		ServiceInstance.sleep(down);
		long restarting = System.nanoTime();
		try {
			instance.start();
			fault.ended("down " + down + " ms, healthy again " + (System.nanoTime() - restarting) / 1_000_000
					+ " ms after the restart");
		}
		catch (RuntimeException ex) {
			this.history.violation("recovery", instance.name() + " did not start again: " + ex.getMessage());
			fault.ended("did not come back");
		}
	}

	/**
	 * Restarts PostgreSQL under the running service: {@code fast} disconnects every
	 * session, {@code immediate} crashes the server and recovers from the WAL. The
	 * service must come back by itself: every instance healthy, and a request answered
	 * 200, without anybody touching it.
	 */
	void restartPostgres(String mode) {
		Fault fault = this.history.faultStarted("postgres restart -m " + mode);
		long started = System.nanoTime();
		this.cluster.postgres().restart(mode);
		long restarted = System.nanoTime();
		fault.resumedNanos = restarted;
		Recovery recovery = awaitRecovery("after the PostgreSQL restart", restarted);
		fault.recoveredMillis = recovery.millis();
		fault.ended("restart took " + (restarted - started) / 1_000_000 + " ms; " + recovery.note());
	}

	/**
	 * Fails over under load, as an operator (or a failover manager) would when the
	 * primary's machine dies: the primary is stopped hard ({@code -m immediate}, nothing
	 * flushed or handed over), after {@code detectionMillis} the synchronous standby is
	 * promoted, and the instances, on a multi-host URL that targets the primary, must
	 * find it by themselves. Until then they answer 503.
	 * @return milliseconds from the promotion until every live instance answered a read
	 * with 200 again
	 */
	long failover(long detectionMillis) {
		ThrowawayPostgres standby = this.cluster.standby();
		if (standby == null) {
			throw new IllegalStateException("failover needs a cluster with a standby");
		}
		Fault fault = this.history.faultStarted("failover: primary stopped hard, standby promoted");
		long started = System.nanoTime();
		this.cluster.postgres().crash();
		long crashed = System.nanoTime();
		ServiceInstance.sleep(detectionMillis);
		long promoting = System.nanoTime();
		standby.promote();
		long promoted = System.nanoTime();
		fault.resumedNanos = promoted;
		String note = awaitRecovery("after the failover", promoted).note();
		long resumedMillis = (System.nanoTime() - promoted) / 1_000_000;
		fault.ended("primary down in " + (crashed - started) / 1_000_000 + " ms, promoted after "
				+ (promoting - crashed) / 1_000_000 + " ms, promotion took " + (promoted - promoting) / 1_000_000
				+ " ms; every instance answering 200 again " + resumedMillis + " ms after the promotion; " + note);
		return resumedMillis;
	}

	/**
	 * Holds a row lock from outside the service on an item nobody claims and sends more
	 * requests that need that row than the pool has connections: each one holds its
	 * connection while it waits. Requests that need a connection then must get a 503
	 * problem in about the pool's connection timeout, not hang; once the lock goes, the
	 * stuck requests finish and the service answers normally again.
	 */
	void exhaustPool(int index) {
		ServiceInstance instance = this.cluster.instances().get(index);
		Fault fault = this.history.faultStarted("pool exhaustion on " + instance.name());
		String token = this.world.token("sentinel");
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("title", token);
		body.put("queue", World.SENTINEL_QUEUE);
		UUID sentinel = Planner.createWithRetries("fault", token, body, this.client, this.world, this.random,
				() -> index);
		if (sentinel == null) {
			fault.ended("skipped: could not create the sentinel item");
			return;
		}
		int slowRequests = this.cluster.poolSize() + 4;
		List<Thread> slow = new ArrayList<>();
		List<Long> probeMillis = new ArrayList<>();
		int unavailable = 0;
		try (Connection lock = this.cluster.connect()) {
			lock.setAutoCommit(false);
			try (PreparedStatement statement = lock
				.prepareStatement("select id from work_items where id = ? for update")) {
				statement.setObject(1, sentinel);
				statement.executeQuery().close();
			}
			for (int i = 0; i < slowRequests; i++) {
				slow.add(Thread.ofVirtual()
					.start(() -> this.client.send(Call.post("fault", Op.CANCEL_ITEM, "/items/" + sentinel + "/cancel",
							Map.of("reason", "pool exhaustion drill"))
						.item(sentinel)
						.on(index))));
			}
			awaitSessionsWaitingOnLocks(this.cluster.poolSize());
			for (int probe = 0; probe < 3; probe++) {
				Reply reply = this.client
					.send(Call.get("fault", Op.PROBE, "/items/" + sentinel).item(sentinel).on(index));
				long millis = Math.round(reply.exchange().millis());
				probeMillis.add(millis);
				if (reply.status() == 503) {
					unavailable++;
					long bound = this.cluster.poolTimeoutMillis() + 5_000;
					if (millis > bound) {
						this.history.violation("pool-exhaustion",
								"the 503 took " + millis + " ms (bound " + bound + " ms): " + reply.exchange());
					}
				}
			}
			lock.rollback();
		}
		catch (SQLException ex) {
			fault.ended("could not hold the lock: " + ex.getMessage());
			return;
		}
		for (Thread thread : slow) {
			try {
				thread.join(60_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (unavailable == 0) {
			this.history.violation("pool-exhaustion", "with every connection of " + instance.name()
					+ " held, no probe got a 503 (probe times " + probeMillis + " ms)");
		}
		String note = awaitRecovery("after the pool was exhausted", System.nanoTime()).note();
		// Make sure the sentinel ends terminal even if every slow cancel gave up.
		for (int attempt = 0; attempt < 30; attempt++) {
			Reply cancelled = this.client
				.send(Call.post("fault", Op.CANCEL_ITEM, "/items/" + sentinel + "/cancel", Map.of()).item(sentinel));
			if (!cancelled.unavailable()) {
				break;
			}
			ServiceInstance.sleep(500);
		}
		fault.ended(unavailable + "/3 probes answered 503 in " + probeMillis + " ms; " + note);
	}

	/**
	 * Every live instance reports healthy and answers a read with 200 within a minute,
	 * each probed on a thread of its own so that a slow one does not delay the others'
	 * figures. An instance still not answering normally {@link #SLOW_RECOVERY_MILLIS}
	 * after {@code since} has its threads dumped into the run's directory: what it waits
	 * for is the evidence of why recovery is slow.
	 * @param since when the disruption ended (System.nanoTime): what the times count from
	 */
	private Recovery awaitRecovery(String when, long since) {
		long deadline = System.nanoTime() + RECOVERY_MILLIS * 1_000_000;
		int faultNumber = this.history.faults().size();
		List<ServiceInstance> instances = this.cluster.instances();
		AtomicLongArray recoveredAt = new AtomicLongArray(instances.size());
		List<Thread> probes = new ArrayList<>();
		for (int index = 0; index < instances.size(); index++) {
			ServiceInstance instance = instances.get(index);
			if (!instance.alive()) {
				continue;
			}
			int probed = index;
			probes.add(Thread.ofVirtual().name("recovery-probe-" + index).start(() -> {
				while (System.nanoTime() < deadline) {
					Reply probe = this.client.send(Call.get("fault", Op.PROBE, "/items?limit=1").on(probed));
					if (probe.status() == 200 && instance.healthy()) {
						recoveredAt.set(probed, System.nanoTime());
						return;
					}
					ServiceInstance.sleep(250);
				}
			}));
		}
		// A probe may itself be what is slow: the dump is taken while it waits.
		ServiceInstance.sleep(Math.max(0, SLOW_RECOVERY_MILLIS - (System.nanoTime() - since) / 1_000_000));
		if (instances.stream().anyMatch((instance) -> instance.alive())
				&& java.util.stream.IntStream.range(0, instances.size()).anyMatch((i) -> recoveredAt.get(i) == 0)) {
			sessions(this.reports.resolve(
					"sessions-fault-" + faultNumber + "-after-" + (System.nanoTime() - since) / 1_000_000 + "ms.txt"));
		}
		for (int index = 0; index < instances.size(); index++) {
			ServiceInstance instance = instances.get(index);
			if (instance.alive() && recoveredAt.get(index) == 0) {
				instance.dumpThreads(this.reports.resolve(instance.name() + "-threads-fault-" + faultNumber + "-after-"
						+ (System.nanoTime() - since) / 1_000_000 + "ms.txt"));
			}
		}
		for (Thread probe : probes) {
			try {
				probe.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return new Recovery(-1, "interrupted while waiting for recovery");
			}
		}
		StringBuilder note = new StringBuilder();
		long slowest = 0;
		for (int index = 0; index < instances.size(); index++) {
			if (!instances.get(index).alive()) {
				continue;
			}
			if (recoveredAt.get(index) == 0) {
				this.history.violation("recovery", instances.get(index).name() + " did not answer normally within "
						+ RECOVERY_MILLIS + " ms " + when);
				slowest = -1;
				note.append(instances.get(index).name()).append(" never, ");
				continue;
			}
			long millis = Math.max(0, (recoveredAt.get(index) - since) / 1_000_000);
			note.append(instances.get(index).name()).append(' ').append(millis).append(" ms, ");
			if (slowest >= 0) {
				slowest = Math.max(slowest, millis);
			}
		}
		return new Recovery(slowest, "answering normally again " + when + ": " + note + "all "
				+ ((slowest >= 0) ? slowest + " ms" : "never"));
	}

	/** What every session of the database is doing and waiting for, into {@code file}. */
	private void sessions(Path file) {
		StringBuilder text = new StringBuilder();
		try (Connection connection = this.cluster.connect();
				PreparedStatement statement = connection.prepareStatement("""
						select pid, application_name, client_port, state, wait_event_type, wait_event,
						       now() - xact_start as in_transaction, now() - query_start as in_query,
						       pg_blocking_pids(pid) as blocked_by, left(query, 160) as query
						from pg_stat_activity where datname = current_database() order by pid
						""");
				ResultSet rs = statement.executeQuery()) {
			int columns = rs.getMetaData().getColumnCount();
			while (rs.next()) {
				for (int i = 1; i <= columns; i++) {
					text.append(rs.getMetaData().getColumnName(i)).append('=').append(rs.getString(i)).append(' ');
				}
				text.append('\n');
			}
			java.nio.file.Files.createDirectories(file.getParent());
			java.nio.file.Files.writeString(file, text);
		}
		catch (SQLException | java.io.IOException ex) {
			System.err.println("Could not record the database's sessions: " + ex.getMessage());
		}
	}

	/**
	 * How long the instances took to answer normally again.
	 *
	 * @param millis from the end of the disruption until the slowest instance did; -1
	 * when one never did
	 * @param note each instance's time, for the report
	 */
	record Recovery(long millis, String note) {
	}

	private void awaitSessionsWaitingOnLocks(int count) {
		long deadline = System.nanoTime() + 15_000_000_000L;
		while (System.nanoTime() < deadline) {
			try (Connection connection = this.cluster.connect();
					PreparedStatement statement = connection
						.prepareStatement("select count(*) from pg_stat_activity where datname = current_database()"
								+ " and wait_event_type = 'Lock'");
					ResultSet rs = statement.executeQuery()) {
				rs.next();
				if (rs.getInt(1) >= count) {
					return;
				}
			}
			catch (SQLException ex) {
				return;
			}
			ServiceInstance.sleep(100);
		}
	}

}
