package dev.workgraph.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * One Work Graph service process: the real application in its own JVM (the test's JDK and
 * class path), on a fixed loopback port so that it comes back at the same address after a
 * kill. {@link #kill()} is SIGKILL: no shutdown hook, no graceful drain, open
 * transactions cut off mid-flight.
 */
final class ServiceInstance {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(300);

	private final String name;

	private final int port;

	private final Map<String, String> properties;

	private final Map<String, String> environment;

	private final String clock;

	private final Path log;

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(2))
		.build();

	private volatile Process process;

	private int starts;

	/**
	 * @param environment extra environment of the JVM, e.g. libfaketime's
	 * @param clock how this instance's wall clock differs from the machine's, for reports
	 */
	ServiceInstance(String name, Map<String, String> properties, Map<String, String> environment, String clock,
			Path log) {
		this.name = name;
		this.port = Ports.free();
		this.properties = properties;
		this.environment = environment;
		this.clock = clock;
		this.log = log;
	}

	String name() {
		return this.name;
	}

	int port() {
		return this.port;
	}

	/** How this instance's wall clock differs from the machine's, for reports. */
	String clock() {
		return this.clock;
	}

	String base() {
		return "http://127.0.0.1:" + this.port;
	}

	int starts() {
		return this.starts;
	}

	/** Starts the process and waits until its health endpoint answers UP. */
	synchronized void start() {
		if (this.process != null && this.process.isAlive()) {
			throw new IllegalStateException(this.name + " is already running");
		}
		if (healthy()) {
			throw new IllegalStateException(this.name + ": something already answers on port " + this.port);
		}
		List<String> command = new ArrayList<>();
		command.add(ProcessHandle.current().info().command().orElse("java"));
		command.addAll(List.of("-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
				"-Duser.timezone=Asia/Kathmandu", "-cp", System.getProperty("java.class.path"),
				"dev.workgraph.WorkGraphApplication"));
		command.add("--server.port=" + this.port);
		this.properties.forEach((key, value) -> command.add("--" + key + "=" + value));
		try {
			Files.createDirectories(this.log.getParent());
			Files.writeString(this.log, "\n===== start " + (this.starts + 1) + " (" + this.clock + ") =====\n",
					StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
					java.nio.file.StandardOpenOption.APPEND);
			ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.log.toFile()));
			builder.environment().putAll(this.environment);
			this.process = builder.start();
			this.process.getOutputStream().close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.starts++;
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (!healthy()) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException(this.name + " exited during start-up (exit " + this.process.exitValue()
						+ "); see " + this.log + "\n" + tail());
			}
			if (System.nanoTime() > deadline) {
				kill();
				throw new IllegalStateException(this.name + " did not become healthy within " + START_TIMEOUT + "; see "
						+ this.log + "\n" + tail());
			}
			sleep(250);
		}
	}

	/** SIGKILL, as an out-of-memory killer or a pulled plug would. */
	synchronized void kill() {
		Process running = this.process;
		if (running == null) {
			return;
		}
		List<ProcessHandle> tree = new ArrayList<>(running.descendants().toList());
		tree.add(running.toHandle());
		tree.forEach(ProcessHandle::destroyForcibly);
		for (ProcessHandle handle : tree) {
			try {
				handle.onExit().get(30, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(this.name + ": process " + handle.pid() + " did not die", ex);
			}
		}
	}

	/** SIGTERM and a graceful shutdown; SIGKILL if that takes too long. */
	synchronized void stop() {
		Process running = this.process;
		if (running == null || !running.isAlive()) {
			return;
		}
		running.destroy();
		try {
			if (!running.waitFor(30, TimeUnit.SECONDS)) {
				kill();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			kill();
		}
	}

	/** SIGTERM, as {@code docker stop} or Kubernetes sends it; does not wait. */
	synchronized void terminate() {
		Process running = this.process;
		if (running == null || !running.isAlive()) {
			throw new IllegalStateException(this.name + " is not running");
		}
		running.destroy();
	}

	/**
	 * Waits for the process to exit; its exit code, or empty when it is still running.
	 */
	OptionalInt awaitExit(Duration timeout) {
		Process running = this.process;
		try {
			return running.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? OptionalInt.of(running.exitValue())
					: OptionalInt.empty();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return OptionalInt.empty();
		}
	}

	/** Everything the process has written so far. */
	String output() {
		try {
			return Files.readString(this.log, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Writes every thread of the process, virtual ones (the requests) included, to
	 * {@code file} with the JDK's {@code jcmd}; a failure to do so is only printed, it is
	 * evidence, not the test.
	 */
	void dumpThreads(Path file) {
		Process running = this.process;
		if (running == null || !running.isAlive()) {
			return;
		}
		Path jcmd = Path.of(ProcessHandle.current().info().command().orElse("java")).resolveSibling("jcmd");
		try {
			Files.createDirectories(file.getParent());
			Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(running.pid()), "Thread.dump_to_file",
					"-format=text", file.toAbsolutePath().toString())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!dump.waitFor(30, TimeUnit.SECONDS)) {
				dump.destroyForcibly();
			}
		}
		catch (IOException ex) {
			System.err.println("Could not dump the threads of " + this.name + ": " + ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	boolean alive() {
		Process running = this.process;
		return running != null && running.isAlive();
	}

	/** GET /actuator/health answered 200 (PostgreSQL reachable from this instance). */
	boolean healthy() {
		try {
			HttpResponse<String> response = this.http
				.send(HttpRequest.newBuilder(URI.create(base() + "/actuator/health"))
					.timeout(Duration.ofSeconds(5))
					.build(), HttpResponse.BodyHandlers.ofString());
			return response.statusCode() == 200;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private String tail() {
		try {
			List<String> lines = Files.readAllLines(this.log, StandardCharsets.UTF_8);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted", ex);
		}
	}

}
