import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The simulated workers: real HTTP against the running service, one virtual thread per
 * worker, each with its own stable worker id, doing what an agent does with a lease.
 */
final class Load {

	/** The lease comes first in {@code {lease, item}}; its epoch is the first one after its id. */
	private static final Pattern LEASE = Pattern.compile("\"lease\":\\{\"id\":\"([0-9a-f-]{36})\".*?\"epoch\":(\\d+)",
			Pattern.DOTALL);

	private static final Pattern TITLE = Pattern.compile("\"item\":\\{.*?\"title\":\"([^\"]*)\"", Pattern.DOTALL);

	private final HttpClient http;

	private final String base;

	private final Auth auth;

	Load(int port, Auth auth) {
		this.auth = auth;
		// HTTP/1.1 with keep-alive, as a worker library would use; the default (HTTP/2) would
		// try an h2c upgrade on every new connection.
		this.http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();
		this.base = "http://127.0.0.1:" + port;
	}

	/** Latencies (ns) and counts of one measured run, all workers merged. */
	static final class Tally {

		final Samples claim = new Samples();

		final Samples renew = new Samples();

		final Samples complete = new Samples();

		long items;

		long errors;

		long empty;

		/** Open loop: claims that were due but never sent because the window closed. */
		long unsent;

		long firstStart = Long.MAX_VALUE;

		long lastEnd;

		final Queue<String> errorSamples = new ConcurrentLinkedQueue<>();

		double seconds() {
			return (this.lastEnd - this.firstStart) / 1e9;
		}

		double itemsPerSecond() {
			return this.items / seconds();
		}

		synchronized void merge(Tally other) {
			this.claim.addAll(other.claim);
			this.renew.addAll(other.renew);
			this.complete.addAll(other.complete);
			this.items += other.items;
			this.errors += other.errors;
			this.empty += other.empty;
			this.firstStart = Math.min(this.firstStart, other.firstStart);
			this.lastEnd = Math.max(this.lastEnd, other.lastEnd);
		}

		void error(String what) {
			this.errors++;
			if (this.errorSamples.size() < 10) {
				this.errorSamples.add(what);
			}
		}

	}

	record Claimed(int status, String leaseId, long epoch, String title, String body) {
	}

	HttpResponse<String> post(String path, String json, String workerId) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.base + path))
			.timeout(Duration.ofSeconds(60))
			.header("Content-Type", "application/json")
			.header("Authorization", "Bearer " + this.auth.tokenFor(workerId))
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	String get(String path) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.base + path))
			.timeout(Duration.ofMinutes(10))
			.header("Authorization", "Bearer " + this.auth.adminToken)
			.build();
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 200) {
			throw new IOException("GET " + path + " answered " + response.statusCode() + ": " + response.body());
		}
		return response.body();
	}

	Claimed claim(String workerId, String queue) throws IOException, InterruptedException {
		String body = (queue == null) ? "{\"workerId\":\"" + workerId + "\"}"
				: "{\"workerId\":\"" + workerId + "\",\"queues\":[\"" + queue + "\"]}";
		HttpResponse<String> r = post("/claims", body, workerId);
		if (r.statusCode() != 201) {
			return new Claimed(r.statusCode(), null, 0, null, r.body());
		}
		Matcher m = LEASE.matcher(r.body());
		Matcher t = TITLE.matcher(r.body());
		if (!m.find()) {
			return new Claimed(-1, null, 0, null, r.body());
		}
		return new Claimed(201, m.group(1), Long.parseLong(m.group(2)), t.find() ? t.group(1) : null, r.body());
	}

	HttpResponse<String> complete(String workerId, String leaseId, long epoch) throws IOException, InterruptedException {
		return post("/leases/" + leaseId + "/complete", "{\"epoch\":" + epoch + "}", workerId);
	}

	HttpResponse<String> renew(String workerId, String leaseId, long epoch) throws IOException, InterruptedException {
		return post("/leases/" + leaseId + "/renew", "{\"epoch\":" + epoch + "}", workerId);
	}

	/**
	 * Closed loop: each worker claims, (renews,) completes, and claims again at once, for
	 * {@code seconds}. Throughput is completed items over the time from the first request
	 * to the last answer.
	 */
	Tally closedLoop(int workers, int seconds, boolean renew) throws InterruptedException {
		long deadline = System.nanoTime() + seconds * 1_000_000_000L;
		return run(workers, (w, tally) -> {
			while (System.nanoTime() < deadline) {
				cycle(w, tally, renew, System.nanoTime());
			}
		});
	}

	/**
	 * Open loop: claims are due at a fixed rate whatever the service does (the next one
	 * does not wait for the previous answer), taken by {@code workers} workers; a claim's
	 * latency counts from when it was due, so a service that falls behind shows it
	 * (no coordinated omission). The complete follows the claim at once. Claims still
	 * unsent when the window closes are not sent (the run must end); they are counted in
	 * {@link Tally#unsent}, and any at all means the service did not keep up.
	 */
	Tally openLoop(int workers, double perSecond, int seconds) throws InterruptedException {
		long total = (long) (perSecond * seconds);
		long start = System.nanoTime() + 10_000_000L;
		long end = start + seconds * 1_000_000_000L;
		AtomicLong next = new AtomicLong();
		Tally all = run(workers, (w, tally) -> {
			for (long i; (i = next.getAndIncrement()) < total;) {
				long due = start + (long) (i * 1e9 / perSecond);
				for (long wait; (wait = due - System.nanoTime()) > 0;) {
					LockSupport.parkNanos(wait);
				}
				if (System.nanoTime() > end) {
					break;
				}
				cycle(w, tally, false, due);
			}
		});
		all.unsent = Math.max(0, total - all.claim.size() - all.errors - all.empty);
		return all;
	}

	/**
	 * One worker, {@code count} claim/complete cycles in a row on one queue (the scale and
	 * chain points: per-claim cost without queueing behind other workers). The claimed
	 * items' titles are returned in order, for checks.
	 */
	Tally sequential(String workerId, String queue, int count, List<String> titles) throws InterruptedException {
		Tally tally = new Tally();
		for (int i = 0; i < count; i++) {
			try {
				long t0 = System.nanoTime();
				tally.firstStart = Math.min(tally.firstStart, t0);
				Claimed c = claim(workerId, queue);
				long t1 = System.nanoTime();
				if (c.status() != 201) {
					if (c.status() == 204) {
						tally.empty++;
					}
					else {
						tally.error("POST /claims -> " + c.status() + " " + abbreviate(c.body()));
					}
					continue;
				}
				tally.claim.add(t1 - t0);
				titles.add(c.title());
				HttpResponse<String> r = complete(workerId, c.leaseId(), c.epoch());
				long t2 = System.nanoTime();
				if (r.statusCode() != 200) {
					tally.error("POST /leases/" + c.leaseId() + "/complete -> " + r.statusCode() + " "
							+ abbreviate(r.body()));
					continue;
				}
				tally.complete.add(t2 - t1);
				tally.items++;
				tally.lastEnd = t2;
			}
			catch (IOException ex) {
				tally.error("I/O: " + ex);
			}
		}
		return tally;
	}

	private void cycle(int w, Tally tally, boolean renew, long due) throws InterruptedException {
		try {
			tally.firstStart = Math.min(tally.firstStart, due);
			String workerId = workerId(w);
			Claimed c = claim(workerId, null);
			long claimed = System.nanoTime();
			if (c.status() == 204) {
				// A drained queue is not throughput: counted, reported, and the point flagged.
				tally.empty++;
				tally.lastEnd = claimed;
				Thread.sleep(5);
				return;
			}
			if (c.status() != 201) {
				tally.error("POST /claims -> " + c.status() + " " + abbreviate(c.body()));
				return;
			}
			tally.claim.add(claimed - due);
			if (renew) {
				long t0 = System.nanoTime();
				HttpResponse<String> r = renew(workerId, c.leaseId(), c.epoch());
				if (r.statusCode() != 200) {
					tally.error("POST /leases/" + c.leaseId() + "/renew -> " + r.statusCode() + " " + abbreviate(r.body()));
					return;
				}
				tally.renew.add(System.nanoTime() - t0);
			}
			long t0 = System.nanoTime();
			HttpResponse<String> r = complete(workerId, c.leaseId(), c.epoch());
			long done = System.nanoTime();
			if (r.statusCode() != 200) {
				tally.error("POST /leases/" + c.leaseId() + "/complete -> " + r.statusCode() + " " + abbreviate(r.body()));
				return;
			}
			tally.complete.add(done - t0);
			tally.items++;
			tally.lastEnd = done;
		}
		catch (IOException ex) {
			tally.error("I/O: " + ex);
		}
	}

	/** The id of simulated worker {@code w}: stable, so tokens can be minted in advance. */
	static String workerId(int w) {
		return "bench-" + w;
	}

	private interface Worker {

		void run(int worker, Tally tally) throws InterruptedException;

	}

	private static Tally run(int workers, Worker body) throws InterruptedException {
		Tally all = new Tally();
		List<Thread> threads = new ArrayList<>();
		for (int w = 0; w < workers; w++) {
			int id = w;
			threads.add(Thread.ofVirtual().name("worker-" + w).start(() -> {
				Tally mine = new Tally();
				try {
					body.run(id, mine);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				all.merge(mine);
				all.errorSamples.addAll(mine.errorSamples);
			}));
		}
		for (Thread t : threads) {
			t.join();
		}
		return all;
	}

	static String abbreviate(String body) {
		String b = (body == null) ? "" : body.replace('\n', ' ');
		return (b.length() > 300) ? b.substring(0, 300) + "..." : b;
	}

}
