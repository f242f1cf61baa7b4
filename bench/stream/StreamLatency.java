import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.workgraph.client.Item;
import dev.workgraph.client.NewItem;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.worker.LeaseContext;
import dev.workgraph.client.worker.Worker;
import dev.workgraph.client.worker.WorkerListener;

/**
 * The stream latency point's JVM (bench/src/StreamLatencyPoint.java starts it): WORKERS idle
 * workers of the project's Java runtime, each its own stream with one handler slot (so each
 * waits among the long-poll claims of the queue), and one creator that makes items in that
 * queue one at a time, RATE a second, WARM seconds unmeasured, then MEASURE seconds. For each
 * item: from its {@code createdAt} (PostgreSQL's clock: the start of the creating transaction,
 * so no later than its commit, when the item became ready) to the moment the runtime hands
 * the worker the pushed lease ({@link WorkerListener#claimed}, this JVM's wall clock, the
 * same machine clock PostgreSQL reads); and, as a cross-check on one monotonic clock, from
 * the create call's return to the same moment (negative when the lease arrived first).
 * Split at the lease's {@code acquiredAt} (the start of the granting transaction, also
 * PostgreSQL's clock): "toGrant" is the time until a grant began (the creating transaction,
 * its notification, the grant's turn), "push" the rest (the claim's transaction, the
 * lease's view and signature, the message, the runtime's hand-over).
 * Prints one line "wg-stream-latency {json}".
 *
 *   java -cp <client classpath> bench/stream/StreamLatency.java URL ADMIN_TOKEN WORKERS_FILE QUEUE RATE WARM MEASURE
 *
 * WORKERS_FILE holds "workerId token" per line.
 */
public class StreamLatency {

	public static void main(String[] args) throws Exception {
		try {
			measure(args);
		}
		catch (Exception ex) {
			ex.printStackTrace();
		}
		finally {
			// The workers' threads would keep the JVM alive after a failure.
			System.exit(0);
		}
	}

	private static void measure(String[] args) throws Exception {
		String url = args[0];
		String adminToken = args[1];
		List<String[]> workers = Files.readAllLines(Path.of(args[2]))
			.stream()
			.filter((line) -> !line.isBlank())
			.map((line) -> line.strip().split(" "))
			.toList();
		String queue = args[3];
		double rate = Double.parseDouble(args[4]);
		int warmSeconds = Integer.parseInt(args[5]);
		int measureSeconds = Integer.parseInt(args[6]);

		Map<UUID, long[]> received = new ConcurrentHashMap<>();
		WorkerListener listener = new WorkerListener() {
			@Override
			public void claimed(LeaseContext lease) {
				Instant now = Instant.now();
				long nanos = System.nanoTime();
				Item item = lease.item();
				long micros = Duration.between(item.createdAt(), now).toNanos() / 1_000;
				long toGrant = Duration.between(item.createdAt(), lease.lease().acquiredAt()).toNanos() / 1_000;
				received.putIfAbsent(item.id(), new long[] { micros, nanos, toGrant, micros - toGrant });
			}
		};
		List<Worker> started = new ArrayList<>();
		for (String[] worker : workers) {
			WorkGraphClient client = WorkGraphClient.builder(url)
				.token(worker[1])
				.requestTimeout(Duration.ofSeconds(30))
				.build();
			started.add(Worker.builder(client)
				.workerId(worker[0])
				.queues(queue)
				.concurrency(1)
				.leaseSeconds(60)
				.waitSeconds(30)
				.stream(true)
				// Every lease measured is a pushed one, not one a completion brought.
				.claimNextWithCompletion(false)
				.handlerThreads(Thread.ofVirtual().factory())
				.handler((lease) -> null)
				.listener(listener)
				.build()
				.start());
		}
		// Every stream open, said hello and waiting before the first item.
		Thread.sleep(3_000);

		WorkGraphClient creator = WorkGraphClient.builder(url)
			.token(adminToken)
			.requestTimeout(Duration.ofSeconds(30))
			.build();
		long period = (long) (1e9 / rate);
		long warmCount = Math.round(rate * warmSeconds);
		long total = warmCount + Math.round(rate * measureSeconds);
		List<UUID> measured = new ArrayList<>();
		Map<UUID, Long> createdReturn = new ConcurrentHashMap<>();
		long failedCreates = 0;
		long start = System.nanoTime();
		for (long i = 0; i < total; i++) {
			long due = start + i * period;
			long wait = due - System.nanoTime();
			if (wait > 0) {
				TimeUnit.NANOSECONDS.sleep(wait);
			}
			Item item;
			try {
				item = creator.createItem(NewItem.titled("latency " + i).withQueue(queue));
			}
			catch (RuntimeException ex) {
				// Counted, not measured: a create that failed or timed out says so itself.
				failedCreates++;
				System.out.println("create " + i + " failed: " + ex.getMessage());
				continue;
			}
			createdReturn.put(item.id(), System.nanoTime());
			if (i >= warmCount) {
				measured.add(item.id());
			}
		}
		double offered = (measured.size()) / ((System.nanoTime() - start) / 1e9 - warmSeconds);
		// The last ones: at most a few seconds to arrive.
		long deadline = System.nanoTime() + 10_000_000_000L;
		while (System.nanoTime() < deadline && !received.keySet().containsAll(measured)) {
			Thread.sleep(50);
		}
		double[] fromCreatedAt = micros(measured, received, 0);
		double[] fromAnswer = measured.stream()
			.filter(received::containsKey)
			.mapToDouble((id) -> (received.get(id)[1] - createdReturn.get(id)) / 1e6)
			.sorted()
			.toArray();
		double[] toGrant = micros(measured, received, 2);
		double[] push = micros(measured, received, 3);
		long missing = measured.size() - fromCreatedAt.length;
		for (Worker worker : started) {
			worker.stop(Duration.ofSeconds(5));
		}
		System.out.println(String.format(Locale.ROOT,
				"wg-stream-latency {\"workers\":%d,\"items\":%d,\"missing\":%d,\"failedCreates\":%d,\"offeredPerSecond\":%.1f,"
						+ "\"p50Ms\":%s,\"p99Ms\":%s,\"maxMs\":%s,"
						+ "\"fromAnswerP50Ms\":%s,\"fromAnswerP99Ms\":%s,\"fromAnswerMaxMs\":%s,"
						+ "\"fromAnswerMinMs\":%s,\"toGrantP50Ms\":%s,\"toGrantP99Ms\":%s,\"pushP50Ms\":%s,"
						+ "\"pushP99Ms\":%s}",
				workers.size(), measured.size(), missing, failedCreates, offered, number(quantile(fromCreatedAt, 0.50)),
				number(quantile(fromCreatedAt, 0.99)), number(max(fromCreatedAt)), number(quantile(fromAnswer, 0.50)),
				number(quantile(fromAnswer, 0.99)), number(max(fromAnswer)),
				number((fromAnswer.length > 0) ? fromAnswer[0] : Double.NaN), number(quantile(toGrant, 0.50)),
				number(quantile(toGrant, 0.99)), number(quantile(push, 0.50)), number(quantile(push, 0.99))));
	}

	/** One of the received figures (microseconds) of the measured items, in ms, sorted. */
	private static double[] micros(List<UUID> measured, Map<UUID, long[]> received, int index) {
		return measured.stream()
			.filter(received::containsKey)
			.mapToDouble((id) -> received.get(id)[index] / 1000.0)
			.sorted()
			.toArray();
	}

	/** The nearest-rank quantile of sorted values. */
	static double quantile(double[] sorted, double q) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		int rank = (int) Math.ceil(q * sorted.length);
		return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
	}

	/** A JSON number, or null when there is none. */
	static String number(double x) {
		return Double.isNaN(x) ? "null" : String.format(Locale.ROOT, "%.2f", x);
	}

	static double max(double[] sorted) {
		return (sorted.length == 0) ? Double.NaN : sorted[sorted.length - 1];
	}

}
