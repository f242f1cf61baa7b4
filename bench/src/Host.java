import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The machine a run ran on, as the results file describes it ({@link Results.Machine}). */
final class Host {

	private Host() {
	}

	static Results.Machine describe(String loadBefore) {
		Pg postgres = new Pg("postgres");
		try {
			return new Results.Machine(Runtime.getRuntime().availableProcessors(), cpuModel(),
					postgres.sql("select version()"), postgres.sql("show autovacuum"),
					postgres.sql("show synchronous_commit"), loadBefore, loadAverage(), memoryMonitor());
		}
		catch (IOException | InterruptedException ex) {
			return new Results.Machine(Runtime.getRuntime().availableProcessors(), cpuModel(), "unknown", "unknown",
					"unknown", loadBefore, loadAverage(), memoryMonitor());
		}
	}

	/** The processor's model name as the kernel reports it. */
	static String cpuModel() {
		try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
			return lines.filter((line) -> line.startsWith("model name"))
				.map((line) -> line.substring(line.indexOf(':') + 1).strip())
				.findFirst()
				.orElse("unknown");
		}
		catch (IOException | UncheckedIOException ex) {
			return "unknown";
		}
	}

	/**
	 * The kernel's DAMON monitors that are on, as "operations action every sample_us" each (e.g.
	 * "paddr pageout every 500000 us"), "off" when none is, "none" without DAMON's sysfs interface.
	 */
	static String memoryMonitor() {
		Path admin = Path.of("/sys/kernel/mm/damon/admin/kdamonds");
		if (!Files.isDirectory(admin)) {
			return "none";
		}
		List<String> on = new ArrayList<>();
		try (var kdamonds = Files.list(admin)) {
			for (Path kdamond : kdamonds.filter(Files::isDirectory).sorted().toList()) {
				if (!"on".equals(sysfs(kdamond.resolve("state")))) {
					continue;
				}
				Path context = kdamond.resolve("contexts/0");
				on.add(sysfs(context.resolve("operations")) + " " + sysfs(context.resolve("schemes/0/action"))
						+ " every " + sysfs(context.resolve("monitoring_attrs/intervals/sample_us")) + " us");
			}
		}
		catch (IOException | UncheckedIOException ex) {
			return "unknown";
		}
		return on.isEmpty() ? "off" : String.join("; ", on);
	}

	private static String sysfs(Path file) {
		try {
			return Files.readString(file).strip();
		}
		catch (IOException ex) {
			return "?";
		}
	}

	static String loadAverage() {
		try {
			return Files.readString(Path.of("/proc/loadavg")).strip();
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

}
