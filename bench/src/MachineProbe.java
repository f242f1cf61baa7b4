import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * The CPU time that one fixed piece of work takes: gzip -1 of the same 16 MiB of
 * pseudo-random bytes, run before each repetition of a point while the box is otherwise
 * idle.
 * On these VMs the kernel reports no steal time, so a host that gives less per core for a
 * while (a busy neighbour, throttling) shows only as more CPU per item on every side at
 * once; a probe that takes longer than the run's others says so directly.
 */
final class MachineProbe {

	private static final int BYTES = 16 << 20;

	private final Path input;

	MachineProbe(Path dir) throws IOException {
		this.input = dir.resolve("machine-probe.bin");
		byte[] bytes = new byte[BYTES];
		new Random(1).nextBytes(bytes);
		Files.write(this.input, bytes);
	}

	/** User + system CPU seconds of one run of the work; NaN if it could not run. */
	double cpuSeconds() {
		try {
			Process p = new ProcessBuilder("bash", "-c",
					"TIMEFORMAT='%3U %3S'; { time gzip -1 -c \"$0\" > /dev/null; } 2>&1", this.input.toString())
				.redirectErrorStream(true)
				.start();
			String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
			if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
				return Double.NaN;
			}
			String[] parts = out.split("\\s+");
			return Double.parseDouble(parts[parts.length - 2]) + Double.parseDouble(parts[parts.length - 1]);
		}
		catch (IOException | NumberFormatException ex) {
			return Double.NaN;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Double.NaN;
		}
	}

}
