import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Where the two cores went during one point: the service, the load generator (wrk, pgbench,
 * node, or this JVM for the JVM generator), PostgreSQL (the backends of the bench's own
 * databases and the server's background processes: WAL writer, checkpointer...), and
 * everything else on the box (other people's builds). Polls /proc every 250 ms and adds up
 * utime + stime deltas per category; a process that starts during the point counts from
 * its start, one that exits loses at most its last 250 ms.
 */
final class Cpu implements AutoCloseable {

	/** Cores used per category over the point. */
	record Cores(double service, double generator, double postgres, double others) {

		static final Cores NONE = new Cores(Double.NaN, Double.NaN, Double.NaN, Double.NaN);

	}

	private static final long POLL_MILLIS = 250;

	private static final double USER_HZ = 100;

	private final long servicePid;

	private final LongSupplier generatorPid;

	private final List<String> databases;

	private final Map<Long, Long> last = new HashMap<>();

	private final Map<Long, String> kind = new HashMap<>();

	private final long[] ticks = new long[4];

	private final long startTicksSinceBoot;

	private final long started = System.nanoTime();

	private final Thread poller;

	private volatile boolean running = true;

	private long elapsedNanos;

	/**
	 * Starts measuring. {@code generatorPid} is asked at every poll (the generator may
	 * start after the meter; 0 while there is none).
	 */
	Cpu(long servicePid, LongSupplier generatorPid, List<String> databases) {
		this.servicePid = servicePid;
		this.generatorPid = generatorPid;
		this.databases = databases;
		this.startTicksSinceBoot = uptimeTicks();
		poll();
		this.poller = Thread.ofPlatform().daemon().name("cpu-meter").start(() -> {
			while (this.running) {
				try {
					Thread.sleep(POLL_MILLIS);
				}
				catch (InterruptedException ex) {
					return;
				}
				poll();
			}
		});
	}

	/** For a generator that runs in this JVM. */
	static long self() {
		return ProcessHandle.current().pid();
	}

	private synchronized void poll() {
		long generator = this.generatorPid.getAsLong();
		Map<Long, Long> now = new HashMap<>();
		try (var procs = Files.list(Path.of("/proc"))) {
			for (Path p : procs.toList()) {
				String name = p.getFileName().toString();
				if (!name.chars().allMatch(Character::isDigit)) {
					continue;
				}
				long pid = Long.parseLong(name);
				try {
					String stat = Files.readString(p.resolve("stat"));
					String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
					String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
					long t = Long.parseLong(f[11]) + Long.parseLong(f[12]);
					now.put(pid, t);
					Long before = this.last.get(pid);
					if (before == null) {
						// New since the last poll: all of its time is inside the point if it
						// started after the meter did (field 22, starttime, since boot).
						before = (Long.parseLong(f[19]) >= this.startTicksSinceBoot) ? 0L : null;
					}
					if (before != null) {
						this.ticks[category(pid, comm, p, generator)] += t - before;
					}
				}
				catch (IOException | RuntimeException gone) {
					// exited meanwhile
				}
			}
		}
		catch (IOException ex) {
			// no /proc: nothing to report
		}
		this.last.clear();
		this.last.putAll(now);
	}

	private int category(long pid, String comm, Path proc, long generator) {
		if (pid == this.servicePid) {
			return 0;
		}
		if (pid == generator) {
			return 1;
		}
		if (!comm.equals("postgres")) {
			return 3;
		}
		String title = this.kind.computeIfAbsent(pid, (p) -> title(proc));
		// A client backend's title names its database and client address; the server's own
		// processes (checkpointer, WAL writer, ...) name neither and work for everyone,
		// mostly for whoever writes most: counted as PostgreSQL's.
		boolean client = title.contains("127.0.0.1(") || title.contains("[local]") || title.contains("::1(");
		if (!client) {
			return 2;
		}
		for (String db : this.databases) {
			if (title.contains(" " + db + " ")) {
				return 2;
			}
		}
		return 3;
	}

	private static String title(Path proc) {
		try {
			return new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
		}
		catch (IOException ex) {
			return "";
		}
	}

	private static long uptimeTicks() {
		try {
			return (long) (Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]) * USER_HZ);
		}
		catch (IOException | RuntimeException ex) {
			return 0;
		}
	}

	/** Stops measuring (idempotent) and answers the cores used per category. */
	synchronized Cores cores() {
		if (this.running) {
			this.running = false;
			this.poller.interrupt();
			poll();
			this.elapsedNanos = System.nanoTime() - this.started;
		}
		double seconds = this.elapsedNanos / 1e9;
		return new Cores(this.ticks[0] / USER_HZ / seconds, this.ticks[1] / USER_HZ / seconds,
				this.ticks[2] / USER_HZ / seconds, this.ticks[3] / USER_HZ / seconds);
	}

	@Override
	public void close() {
		cores();
	}

}
