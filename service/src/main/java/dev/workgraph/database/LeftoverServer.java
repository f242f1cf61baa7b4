package dev.workgraph.database;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Clears what a run that ended without stopping its PostgreSQL left in the data
 * directory. The server runs in its own session, so when the service is killed (SIGKILL,
 * a crash, a closed terminal) it keeps running, holding the directory: it is shut down,
 * and its socket's private directory removed. A {@code postmaster.pid} whose process is
 * gone, or whose number now belongs to another program (process ids repeat after a reboot
 * or in a new container), is removed, since PostgreSQL would otherwise refuse to start.
 * Only called while this service holds the {@link DataDirectoryLock}, so no other service
 * is using the server.
 */
final class LeftoverServer {

	private static final Logger log = LoggerFactory.getLogger(LeftoverServer.class);

	/** A smart shutdown of a server without clients takes a checkpoint: seconds. */
	private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

	private LeftoverServer() {
	}

	static void clear(Path dataDir) throws IOException {
		Path pidFile = dataDir.resolve("postmaster.pid");
		if (!Files.exists(pidFile)) {
			return;
		}
		List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
		Optional<ProcessHandle> server = postmaster(lines);
		if (server.isPresent()) {
			log.warn("An embedded PostgreSQL (pid {}) left running by an earlier run is still using {}: stopping it",
					server.get().pid(), dataDir);
			stop(server.get());
			removeSocketDirectory(lines);
		}
		if (Files.deleteIfExists(pidFile)) {
			log.info("Removed the stale {} of a run that did not stop its PostgreSQL", pidFile);
		}
	}

	/** The live PostgreSQL process that the pid file names, if there is one. */
	private static Optional<ProcessHandle> postmaster(List<String> pidFile) {
		if (pidFile.isEmpty()) {
			return Optional.empty();
		}
		try {
			return ProcessHandle.of(Long.parseLong(pidFile.get(0).strip()))
				.filter((process) -> process.info().command().map(LeftoverServer::isPostgres).orElse(false));
		}
		catch (NumberFormatException ex) {
			return Optional.empty();
		}
	}

	/**
	 * The private directory of the stopped server's socket (the pid file's fifth line),
	 * which PostgreSQL emptied as it stopped and the run that made it did not remove.
	 */
	private static void removeSocketDirectory(List<String> pidFile) {
		if (pidFile.size() < 5 || pidFile.get(4).isBlank()) {
			return;
		}
		Path directory = Path.of(pidFile.get(4).strip());
		if (directory.getFileName() != null
				&& directory.getFileName().toString().startsWith(ServerAccess.SOCKET_DIRECTORY_PREFIX)) {
			try {
				Files.deleteIfExists(directory);
			}
			catch (IOException ex) {
				log.debug("Could not remove the socket directory {} of the stopped server", directory, ex);
			}
		}
	}

	private static boolean isPostgres(String command) {
		String name = Path.of(command).getFileName().toString();
		return name.equals("postgres") || name.equals("postgres.exe");
	}

	/**
	 * SIGTERM asks for a smart shutdown (clean, with a checkpoint); one that does not end
	 * in time is killed, and the next start recovers from the write-ahead log.
	 */
	private static void stop(ProcessHandle server) throws IOException {
		server.destroy();
		if (!exited(server, SHUTDOWN_TIMEOUT)) {
			log.warn("PostgreSQL (pid {}) did not shut down within {}: killing it", server.pid(), SHUTDOWN_TIMEOUT);
			server.destroyForcibly();
			if (!exited(server, SHUTDOWN_TIMEOUT)) {
				throw new IOException("PostgreSQL (pid " + server.pid() + ") did not exit after SIGKILL");
			}
		}
	}

	private static boolean exited(ProcessHandle process, Duration timeout) throws IOException {
		try {
			process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
			return true;
		}
		catch (TimeoutException ex) {
			return false;
		}
		catch (ExecutionException ex) {
			throw new IOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException("Interrupted while waiting for PostgreSQL (pid " + process.pid() + ") to exit", ex);
		}
	}

}
