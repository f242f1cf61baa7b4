import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** psql and pgbench against the local server (127.0.0.1 only), through their own clients. */
final class Pg {

	static final String HOST = "127.0.0.1";

	/**
	 * The threads a C generator runs its clients on: pgbench's {@code -j}, and wrk's
	 * {@code -t} in the closed loops, so that both sides of a ratio pay alike for their load.
	 */
	static final int GENERATOR_THREADS = 2;

	/** Checkpoints the server has completed, timed or requested. */
	static final String CHECKPOINTS = "select checkpoints_timed + checkpoints_req from pg_stat_bgwriter";

	final String db;

	Pg(String db) {
		this.db = db;
	}

	static void createDatabase(String db) throws IOException, InterruptedException {
		new Pg("postgres").sql("create database " + db);
	}

	static void dropDatabase(String db) throws IOException, InterruptedException {
		new Pg("postgres").sql("drop database if exists " + db + " with (force)");
	}

	/** Runs a script (statements one by one, so VACUUM works) and returns unaligned output. */
	String sql(String script) throws IOException, InterruptedException {
		return exec(List.of("psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", HOST, "-U", "postgres",
				"-d", this.db, "-f", "-"), script).strip();
	}

	long count(String query) throws IOException, InterruptedException {
		return Long.parseLong(sql(query));
	}

	/** Vacuums the hot tables so that every point starts without dead queue-head entries. */
	void vacuumHot() throws IOException, InterruptedException {
		sql("vacuum (analyze) work_items, ready_items, leases, lease_history, dependencies;");
	}

	/**
	 * Connections pgbench may open: max_connections less those in use and a margin (the
	 * services' pools, psql). On a stock server (100) the 128-client point cannot run 128.
	 */
	int freeConnections() throws IOException, InterruptedException {
		return (int) count("""
				select current_setting('max_connections')::int - (select count(*) from pg_stat_activity)
				    - current_setting('superuser_reserved_connections')::int - 5
				""");
	}

	record PgbenchResult(double tps, long transactions, double latencyMs, int aborted, String output) {
	}

	/**
	 * pgbench with the service's own statements, prepared (the service's JDBC driver
	 * prepares them too), one pgbench thread per core.
	 */
	PgbenchResult pgbench(Path script, int clients, int seconds) throws IOException, InterruptedException {
		return pgbench(script, clients, seconds, (pid) -> {
		});
	}

	/** The same, telling {@code started} pgbench's pid (for the CPU meter). */
	PgbenchResult pgbench(Path script, int clients, int seconds, java.util.function.LongConsumer started)
			throws IOException, InterruptedException {
		List<String> cmd = new ArrayList<>(List.of("pgbench", "-h", HOST, "-U", "postgres", "-n", "-M", "prepared",
				"-c", String.valueOf(clients), "-j", String.valueOf(Math.min(clients, GENERATOR_THREADS)), "-T",
				String.valueOf(seconds), "-f", script.toString(), this.db));
		Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
		started.accept(p.pid());
		String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		p.waitFor();
		double tps = number(out, "tps = ([0-9.]+) \\(without initial connection time\\)", 0);
		long tx = (long) number(out, "number of transactions actually processed: ([0-9]+)", 0);
		double lat = number(out, "latency average = ([0-9.]+) ms", 0);
		int aborted = 0;
		for (String line : out.split("\n")) {
			if (line.contains("aborted")) {
				aborted++;
			}
		}
		if (p.exitValue() != 0 && aborted == 0) {
			aborted = 1;
		}
		return new PgbenchResult(tps, tx, lat, aborted, out);
	}

	private static double number(String text, String regex, double otherwise) {
		Matcher m = Pattern.compile(regex).matcher(text);
		return m.find() ? Double.parseDouble(m.group(1)) : otherwise;
	}

	static String exec(List<String> cmd, String stdin) throws IOException, InterruptedException {
		Process p = new ProcessBuilder(cmd).start();
		Thread feeder = Thread.ofVirtual().start(() -> {
			try (var in = p.getOutputStream()) {
				in.write(stdin.getBytes(StandardCharsets.UTF_8));
			}
			catch (IOException ignored) {
				// the process failed early; its exit code and stderr say why
			}
		});
		byte[][] stderr = new byte[1][];
		Thread err = Thread.ofVirtual().start(() -> {
			try {
				stderr[0] = p.getErrorStream().readAllBytes();
			}
			catch (IOException ex) {
				stderr[0] = new byte[0];
			}
		});
		String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		p.waitFor();
		feeder.join();
		err.join();
		if (p.exitValue() != 0) {
			throw new IOException(cmd.getFirst() + " failed (" + p.exitValue() + "): "
					+ new String(stderr[0], StandardCharsets.UTF_8).strip());
		}
		return out;
	}

}
