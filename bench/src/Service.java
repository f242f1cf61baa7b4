import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The packaged service as production runs it (no tuning flags), on its own database, and
 * what it costs: CPU from /proc, peak RSS (VmHWM), heap sampled with jstat.
 */
final class Service implements AutoCloseable {

	private final Process process;

	final long pid;

	final int port;

	final Path log;

	private final Path javaHome;

	private Service(Process process, int port, Path log, Path javaHome) {
		this.process = process;
		this.pid = process.pid();
		this.port = port;
		this.log = log;
		this.javaHome = javaHome;
	}

	/**
	 * The service's maximum heap (-Xmx), WG_SERVICE_HEAP or 256m: every figure of a run is
	 * measured within it, which is what the heap target asks (a JVM left to size its own
	 * heap on this 24 GiB machine lets garbage pile up to hundreds of MiB between
	 * collections, which says nothing about what the service needs). The heap is committed
	 * at that size from the start (-Xms as well), as docs/operations.md recommends for
	 * production: left to grow from a small heap, G1 kept it near the live set and
	 * collected twice a second with a marking cycle every second or so, which put its
	 * pauses into the latency tail (open loop claim p99 32 ms against 10 ms).
	 */
	static final String HEAP = System.getenv().getOrDefault("WG_SERVICE_HEAP", "256m");

	/**
	 * The Serial collector: the one the JVM picks by itself in the container
	 * docs/operations.md recommends (about 640 MiB; below about 1.75 GiB of memory, or with
	 * one CPU, the JVM does not count as a server machine), where on this 24 GiB box it
	 * would pick G1. For the 256 MiB heap it also costs the least CPU: G1's barriers and
	 * concurrent work were about a sixth of the service's CPU (bench/ab.sh: lifecycle
	 * x1.13, service CPU per item -17 %).
	 */
	static final String COLLECTOR = "-XX:+UseSerialGC";

	/** Starts the process; call {@link #awaitHealthy} before using it. */
	static Service launch(Path javaHome, Path jar, String db, int port, String adminToken, Path log, Path pidFile)
			throws IOException, InterruptedException {
		ProcessBuilder pb = new ProcessBuilder(javaHome.resolve("bin/java").toString(), "-Xms" + HEAP, "-Xmx" + HEAP,
				COLLECTOR, "-Xlog:gc:file=" + gcLog(log) + ":uptime", "-jar", jar.toString(), "--server.port=" + port)
			.redirectErrorStream(true)
			.redirectOutput(log.toFile());
		pb.environment().put("SPRING_DATASOURCE_URL", "jdbc:postgresql://127.0.0.1:5432/" + db);
		pb.environment().put("SPRING_DATASOURCE_USERNAME", "postgres");
		pb.environment().put("SPRING_DATASOURCE_PASSWORD", "");
		// Accepted as an admin token once the service has security; ignored before.
		pb.environment().put("WORKGRAPH_SECURITY_BOOTSTRAP_ADMIN_TOKEN", adminToken);
		Service s = new Service(pb.start(), port, log, javaHome);
		// run.sh kills whatever is listed here if this JVM dies without cleaning up.
		Files.writeString(pidFile, s.pid + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		return s;
	}

	/** Where the service's collections are logged: beside its log. */
	static Path gcLog(Path log) {
		return log.resolveSibling(log.getFileName().toString().replaceFirst("\\.log$", "") + "-gc.log");
	}

	/**
	 * The collections' pauses, from the GC log: how many young ones and the longest, and
	 * every full one with its time since the service started (a full collection of the
	 * Serial collector stops the service for tens to hundreds of milliseconds, which a
	 * run's latency tail shows).
	 */
	static String gcSummary(Path gcLog) throws IOException {
		if (!Files.exists(gcLog)) {
			return "no GC log";
		}
		java.util.regex.Pattern pause = java.util.regex.Pattern
			.compile("^\\[([0-9.]+)s\\].*Pause (Young|Full).* ([0-9.]+)ms$");
		int young = 0;
		double longestYoung = 0;
		List<String> full = new java.util.ArrayList<>();
		for (String line : Files.readAllLines(gcLog)) {
			java.util.regex.Matcher m = pause.matcher(line);
			if (!m.matches()) {
				continue;
			}
			double ms = Double.parseDouble(m.group(3));
			if (m.group(2).equals("Young")) {
				young++;
				longestYoung = Math.max(longestYoung, ms);
			}
			else {
				full.add(String.format(java.util.Locale.ROOT, "%.0f ms at %.0f s", ms, Double.parseDouble(m.group(1))));
			}
		}
		return String.format(java.util.Locale.ROOT, "%d young pauses (longest %.1f ms), %d full %s", young, longestYoung,
				full.size(), full);
	}

	/** A port nobody listens on now (the kernel's choice), for a service of this run. */
	static int freePort() throws IOException {
		try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	void awaitHealthy(Duration timeout) throws IOException, InterruptedException {
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IOException("service exited with " + this.process.exitValue() + ", see " + this.log);
			}
			try {
				HttpResponse<String> r = http.send(
						HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/actuator/health")).build(),
						HttpResponse.BodyHandlers.ofString());
				if (r.statusCode() == 200 && r.body().contains("\"UP\"")) {
					return;
				}
			}
			catch (IOException notYet) {
				// still starting
			}
			Thread.sleep(200);
		}
		throw new IOException("service not healthy after " + timeout + ", see " + this.log);
	}

	/** user + system CPU time of the service process so far, in seconds. */
	double cpuSeconds() throws IOException {
		String stat = Files.readString(Path.of("/proc/" + this.pid + "/stat"));
		String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
		// Fields 14 and 15 of proc(5) (utime, stime), counted from the state field (3).
		long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
		return ticks / 100.0; // USER_HZ is 100 on Linux
	}

	/** Peak resident set size so far (VmHWM), MiB. */
	double peakRssMib() throws IOException {
		for (String line : Files.readAllLines(Path.of("/proc/" + this.pid + "/status"))) {
			if (line.startsWith("VmHWM:")) {
				return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
			}
		}
		return Double.NaN;
	}

	/** Samples heap use every 200 ms with jstat until closed; keeps the peak. */
	final class HeapSampler implements AutoCloseable {

		private final Process jstat;

		private final Thread reader;

		volatile double peakUsedMib;

		volatile double peakCommittedMib;

		HeapSampler() throws IOException {
			this.jstat = new ProcessBuilder(Service.this.javaHome.resolve("bin/jstat").toString(), "-gc",
					String.valueOf(Service.this.pid), "200")
				.redirectErrorStream(true)
				.start();
			this.reader = Thread.ofVirtual().start(this::read);
		}

		private void read() {
			try (BufferedReader in = new BufferedReader(
					new InputStreamReader(this.jstat.getInputStream(), StandardCharsets.UTF_8))) {
				List<String> header = null;
				for (String line; (line = in.readLine()) != null;) {
					List<String> cols = Arrays.asList(line.trim().split("\\s+"));
					if (cols.contains("EU")) {
						header = cols;
						continue;
					}
					if (header == null || cols.size() != header.size()) {
						continue;
					}
					double used = 0;
					double committed = 0;
					for (String c : List.of("S0U", "S1U", "EU", "OU")) {
						used += Double.parseDouble(cols.get(header.indexOf(c)));
					}
					for (String c : List.of("S0C", "S1C", "EC", "OC")) {
						committed += Double.parseDouble(cols.get(header.indexOf(c)));
					}
					this.peakUsedMib = Math.max(this.peakUsedMib, used / 1024);
					this.peakCommittedMib = Math.max(this.peakCommittedMib, committed / 1024);
				}
			}
			catch (IOException | RuntimeException ex) {
				// jstat ended; the peak so far stands
			}
		}

		@Override
		public void close() throws InterruptedException {
			Thread.sleep(250);
			this.jstat.destroy();
			this.reader.join();
		}

	}

	@Override
	public void close() throws InterruptedException {
		this.process.destroy(); // SIGTERM: graceful shutdown
		if (!this.process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
			this.process.destroyForcibly().waitFor();
		}
	}

}
