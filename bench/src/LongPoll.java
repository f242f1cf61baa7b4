import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * The two long-poll measurements (docs/adr/0008), against a running service (bench/longpoll.sh
 * starts one):
 *
 * <ol>
 * <li><b>wake-up latency</b>: 32 workers wait with {@code waitSeconds} on an empty queue; items
 * are created one at a time; for each, the time from its creation to the lease being granted
 * (both PostgreSQL's clock: {@code lease.acquiredAt - item.createdAt}, so the creating
 * transaction's own time is included), and from sending the creating request to the worker
 * holding the answer (the client's clock; includes the creation's round trip);</li>
 * <li><b>idle cost</b>: CPU of the service process and of the database's backends, and the
 * service's sessions in {@code pg_stat_activity}, over a window with no claims waiting and over
 * one with 1,000 claims waiting.</li>
 * </ol>
 *
 * Usage: {@code java bench/src/LongPoll.java PORT SERVICE_PID DATABASE ADMIN_TOKEN}
 */
public class LongPoll {

	static final int WAITERS = 32;

	static final int ITEMS = 300;

	static final int WARM_UP_ITEMS = 30;

	static final int IDLE_CLAIMS = 1000;

	static final Duration WINDOW = Duration.ofSeconds(20);

	static final long USER_HZ = 100;

	public static void main(String[] args) throws Exception {
		int port = Integer.parseInt(args[0]);
		long servicePid = Long.parseLong(args[1]);
		String database = args[2];
		String adminToken = args[3];
		String base = "http://127.0.0.1:" + port;
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		List<String> workers = new ArrayList<>();
		IntStream.range(0, WAITERS).forEach((i) -> workers.add("lp-" + i));
		IntStream.range(0, IDLE_CLAIMS).forEach((i) -> workers.add("idle-" + i));
		Auth auth = Auth.mint(port, adminToken, workers);
		System.out.println("longpoll: auth " + auth.mode);
		wakeUpLatency(http, base, auth);
		idleCost(http, base, auth, servicePid, database);
		System.exit(0);
	}

	static void wakeUpLatency(HttpClient http, String base, Auth auth) throws Exception {
		Map<String, Long> sentAt = new ConcurrentHashMap<>();
		List<Double> dbMillis = Collections.synchronizedList(new ArrayList<>());
		List<Double> clientMillis = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger taken = new AtomicInteger();
		AtomicInteger errors = new AtomicInteger();
		AtomicBoolean measuring = new AtomicBoolean();
		AtomicBoolean running = new AtomicBoolean(true);
		for (int w = 0; w < WAITERS; w++) {
			String workerId = "lp-" + w;
			Thread.ofVirtual().start(() -> {
				while (running.get()) {
					try {
						HttpResponse<String> claim = post(http, base + "/claims", auth.tokenFor(workerId),
								"{\"workerId\":\"" + workerId + "\",\"queues\":[\"lp-wake\"],\"waitSeconds\":30,"
										+ "\"leaseSeconds\":60}");
						long received = System.nanoTime();
						if (claim.statusCode() == 204) {
							continue;
						}
						if (claim.statusCode() != 201) {
							errors.incrementAndGet();
							continue;
						}
						Map<String, Object> body = Json.object(claim.body());
						@SuppressWarnings("unchecked")
						Map<String, Object> lease = (Map<String, Object>) body.get("lease");
						@SuppressWarnings("unchecked")
						Map<String, Object> item = (Map<String, Object>) body.get("item");
						Long sent = sentAt.get((String) item.get("title"));
						if (measuring.get() && sent != null) {
							dbMillis.add(Duration
								.between(Instant.parse((String) item.get("createdAt")),
										Instant.parse((String) lease.get("acquiredAt")))
								.toNanos() / 1e6);
							clientMillis.add((received - sent) / 1e6);
						}
						HttpResponse<String> done = post(http, base + "/leases/" + lease.get("id") + "/complete",
								auth.tokenFor(workerId), "{\"epoch\":" + ((Number) lease.get("epoch")).longValue() + "}");
						if (done.statusCode() != 200) {
							errors.incrementAndGet();
						}
						taken.incrementAndGet();
					}
					catch (IOException | InterruptedException ex) {
						errors.incrementAndGet();
					}
				}
			});
		}
		Thread.sleep(2_000); // every worker waiting
		for (int i = 0; i < WARM_UP_ITEMS + ITEMS; i++) {
			if (i == WARM_UP_ITEMS) {
				awaitTaken(taken, WARM_UP_ITEMS);
				measuring.set(true);
			}
			String title = "lp " + i;
			sentAt.put(title, System.nanoTime());
			HttpResponse<String> created = post(http, base + "/items", auth.adminToken,
					"{\"title\":\"" + title + "\",\"queue\":\"lp-wake\"}");
			if (created.statusCode() != 201) {
				errors.incrementAndGet();
			}
			Thread.sleep(30);
		}
		awaitTaken(taken, WARM_UP_ITEMS + ITEMS);
		running.set(false);
		System.out.printf("longpoll: wake-up, %d waiters, %d items one at a time (every 30 ms), errors %d%n", WAITERS,
				ITEMS, errors.get());
		System.out.println("longpoll:   ready -> lease granted (database clock): " + percentiles(dbMillis));
		System.out.println("longpoll:   create sent -> worker holds the lease (client clock): " + percentiles(clientMillis));
	}

	static void idleCost(HttpClient http, String base, Auth auth, long servicePid, String database) throws Exception {
		Thread.sleep(35_000); // the 32 latency waiters' last claims have ended (30 s waits)
		System.out.println("longpoll: idle, no claims waiting: " + window(servicePid, database));
		List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
		for (int i = 0; i < IDLE_CLAIMS; i++) {
			String workerId = "idle-" + i;
			waiting.add(http.sendAsync(request(base + "/claims", auth.tokenFor(workerId),
					"{\"workerId\":\"" + workerId + "\",\"queues\":[\"lp-idle\"],\"waitSeconds\":60}")
				.timeout(Duration.ofSeconds(90))
				.build(), HttpResponse.BodyHandlers.ofString()));
		}
		Thread.sleep(10_000); // all arrived and waiting
		long answeredEarly = waiting.stream().filter(CompletableFuture::isDone).count();
		System.out.println("longpoll: idle, " + IDLE_CLAIMS + " claims waiting (" + answeredEarly
				+ " answered before the window): " + window(servicePid, database));
	}

	/** CPU and sessions over one window. */
	static String window(long servicePid, String database) throws Exception {
		List<Long> backends = backendPids(database);
		long serviceBefore = cpuTicks(servicePid);
		long backendsBefore = backends.stream().mapToLong(LongPoll::cpuTicks).sum();
		Thread.sleep(WINDOW.toMillis());
		long service = cpuTicks(servicePid) - serviceBefore;
		long pg = backends.stream().mapToLong(LongPoll::cpuTicks).sum() - backendsBefore;
		double seconds = WINDOW.toSeconds();
		String sessions = psql(database,
				"select string_agg(application_name || ' ' || state || ' ' || n, ', ' order by application_name, state) "
						+ "from (select application_name, state, count(*) n from pg_stat_activity "
						+ "where datname = current_database() and pid <> pg_backend_pid() group by 1, 2) s");
		return String.format("service CPU %.1f %% of a core, database backends CPU %.1f %%; sessions: %s",
				100.0 * service / USER_HZ / seconds, 100.0 * pg / USER_HZ / seconds, sessions);
	}

	static List<Long> backendPids(String database) throws Exception {
		List<Long> pids = new ArrayList<>();
		for (String line : psql(database,
				"select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()")
			.split("\n")) {
			if (!line.isBlank()) {
				pids.add(Long.parseLong(line.trim()));
			}
		}
		return pids;
	}

	/** utime + stime of a process (0 once it is gone). */
	static long cpuTicks(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
		}
		catch (IOException ex) {
			return 0;
		}
	}

	static String psql(String database, String sql) throws Exception {
		Process p = new ProcessBuilder("psql", "-X", "-q", "-A", "-t", "-h", "127.0.0.1", "-U", "postgres", "-d",
				database, "-c", sql)
			.redirectErrorStream(true)
			.start();
		String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
		p.waitFor();
		return out;
	}

	static void awaitTaken(AtomicInteger taken, int n) throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
		while (taken.get() < n) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("only " + taken.get() + " of " + n + " items were taken");
			}
			Thread.sleep(5);
		}
	}

	static String percentiles(List<Double> samples) {
		List<Double> sorted = new ArrayList<>(samples);
		Collections.sort(sorted);
		if (sorted.isEmpty()) {
			return "no samples";
		}
		return String.format("n=%d p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms", sorted.size(), at(sorted, 0.50),
				at(sorted, 0.90), at(sorted, 0.99), sorted.getLast());
	}

	static double at(List<Double> sorted, double q) {
		return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1));
	}

	static HttpResponse<String> post(HttpClient http, String url, String token, String body)
			throws IOException, InterruptedException {
		return http.send(request(url, token, body).timeout(Duration.ofSeconds(60)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	static HttpRequest.Builder request(String url, String token, String body) {
		return HttpRequest.newBuilder(URI.create(url))
			.header("Content-Type", "application/json")
			.header("Authorization", "Bearer " + token)
			.POST(HttpRequest.BodyPublishers.ofString(body));
	}

}
