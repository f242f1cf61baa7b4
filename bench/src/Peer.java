import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The peer point: graphile-worker (bench/peer, installed with {@code npm ci} from the
 * committed lock file) run by bench/peer/graphile.js on a fresh database of the same
 * server, its node process measured as the generator during the measured window only.
 */
final class Peer {

	record Run(double jobsPerSecond, double windowSeconds, long failed, boolean drained, String library, String mode,
			int maxPoolSize, Cpu.Cores cpu) {
	}

	private final Path dir;

	Peer(Path dir) {
		this.dir = dir;
	}

	/**
	 * Installs the locked dependencies unless this lock file is already installed (npm
	 * records what it installed in node_modules/.package-lock.json). Answers why the peer
	 * cannot run, or null.
	 */
	String install() throws InterruptedException {
		Path installed = this.dir.resolve("node_modules/.package-lock.json");
		try {
			if (Files.exists(installed)
					&& Files.getLastModifiedTime(installed).compareTo(
							Files.getLastModifiedTime(this.dir.resolve("package-lock.json"))) >= 0) {
				return null;
			}
			Process p = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
				.directory(this.dir.toFile())
				.redirectErrorStream(true)
				.start();
			String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (p.waitFor() != 0) {
				return "npm ci failed: " + out.strip();
			}
			return null;
		}
		catch (IOException ex) {
			return "npm ci could not run (" + ex.getMessage() + "); Node.js and npm are needed for the peer point";
		}
	}

	Run run(String database, int concurrency, long jobs, int warmSeconds, int measureSeconds, long servicePid,
			List<String> databases) throws IOException, InterruptedException {
		ProcessBuilder pb = new ProcessBuilder("node", this.dir.resolve("graphile.js").toString())
			.redirectErrorStream(true);
		pb.environment()
			.putAll(Map.of("DATABASE_URL", "postgres://postgres@" + Pg.HOST + ":5432/" + database, "CONCURRENCY",
					String.valueOf(concurrency), "JOBS", String.valueOf(jobs), "WARM_SECONDS",
					String.valueOf(warmSeconds), "MEASURE_SECONDS", String.valueOf(measureSeconds)));
		Process p = pb.start();
		StringBuilder out = new StringBuilder();
		Cpu cpu = null;
		Cpu.Cores cores = Cpu.Cores.NONE;
		String line = null;
		try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
			for (String l; (l = in.readLine()) != null;) {
				out.append(l).append('\n');
				if (l.equals("wg-window start")) {
					cpu = new Cpu(servicePid, p::pid, databases);
				}
				else if (l.equals("wg-window end") && cpu != null) {
					cores = cpu.cores();
				}
				else if (l.startsWith("wg-peer ")) {
					line = l;
				}
			}
		}
		finally {
			if (cpu != null) {
				cpu.close();
			}
		}
		p.waitFor();
		if (line == null) {
			throw new IOException("the peer failed (" + p.exitValue() + "):\n" + out);
		}
		Map<String, Object> r = Json.object(line.substring("wg-peer ".length()));
		return new Run((Double) r.get("jobsPerSecond"), (Double) r.get("windowSeconds"),
				((Double) r.get("failed")).longValue(), (Boolean) r.get("drained"), (String) r.get("library"),
				(String) r.get("mode"), ((Double) r.get("maxPoolSize")).intValue(), cores);
	}

}
