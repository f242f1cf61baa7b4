import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CPU bookkeeping for a shared machine: how much CPU the rest of the box (other
 * people's builds, tests, benchmarks) took while a point ran. Figures from a point with
 * a busy neighbour are not comparable with a quiet one; ratios measured in the same run
 * (raw and service alternating) still are, roughly.
 */
final class Machine {

	/** CPU ticks (USER_HZ) of every process, by pid. */
	private final Map<Long, Long> ticks;

	private final long nanos = System.nanoTime();

	private Machine(Map<Long, Long> ticks) {
		this.ticks = ticks;
	}

	static Machine snapshot() {
		Map<Long, Long> ticks = new HashMap<>();
		try (var procs = Files.list(Path.of("/proc"))) {
			for (Path p : procs.toList()) {
				String name = p.getFileName().toString();
				if (!name.chars().allMatch(Character::isDigit)) {
					continue;
				}
				try {
					String stat = Files.readString(p.resolve("stat"));
					String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
					ticks.put(Long.parseLong(name), Long.parseLong(f[11]) + Long.parseLong(f[12]));
				}
				catch (IOException | RuntimeException gone) {
					// exited meanwhile
				}
			}
		}
		catch (IOException ex) {
			// no /proc: report nothing
		}
		return new Machine(ticks);
	}

	/**
	 * Cores used, between this snapshot and {@code later}, by processes alive at both
	 * moments and not in {@code mine} (the bench, its service, its PostgreSQL backends).
	 */
	double othersCores(Machine later, Set<Long> mine) {
		long sum = 0;
		for (var e : later.ticks.entrySet()) {
			Long before = this.ticks.get(e.getKey());
			if (before != null && !mine.contains(e.getKey())) {
				sum += e.getValue() - before;
			}
		}
		return sum / 100.0 / ((later.nanos - this.nanos) / 1e9);
	}

	/** Our processes: this JVM, the services, and the backends serving our databases. */
	static Set<Long> mine(Pg postgres, List<Long> services, List<String> databases) {
		Set<Long> mine = new java.util.HashSet<>(services);
		mine.add(ProcessHandle.current().pid());
		try {
			String pids = postgres.sql("select string_agg(pid::text, ',') from pg_stat_activity where datname in ('"
					+ String.join("','", databases) + "')");
			for (String pid : pids.split(",")) {
				if (!pid.isBlank()) {
					mine.add(Long.parseLong(pid.strip()));
				}
			}
		}
		catch (IOException | InterruptedException ex) {
			// counted as others then; the figure is a hint, not a measurement
		}
		return mine;
	}

}
