package dev.workgraph.database;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.zonky.test.db.postgres.util.LinuxUtils;
import org.postgresql.util.PasswordUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may connect to the embedded PostgreSQL: whoever knows its password, and nobody
 * else, whichever local OS user they are. The password is generated at the first start
 * and kept in the data directory in libpq's pgpass format ({@value #PASSWORD_FILE},
 * readable by its owner only, like the rest of the directory); it is the password of both
 * the service's user and the superuser. The server's Unix socket is in a directory of its
 * own that only this OS user may enter, not in the shared temporary directory.
 *
 * <p>
 * At every start, before the server listens, {@code pg_hba.conf} is rewritten to ask
 * every connection for the password (SCRAM), and the superuser's password is set to the
 * file's in single-user mode. So a data directory that an earlier version made (which let
 * every local connection in without a password) is upgraded in place, with its data, and
 * a server never listens while it trusts anyone.
 */
final class ServerAccess implements AutoCloseable {

	static final String PASSWORD_FILE = "pgpass";

	static final String SUPERUSER = "postgres";

	static final String SOCKET_DIRECTORY_PREFIX = "workgraph-pg-";

	private static final Logger log = LoggerFactory.getLogger(ServerAccess.class);

	private static final String PG_HBA = """
			# Written by Work Graph at every start of its embedded PostgreSQL: every connection, over
			# its socket or TCP, proves the password in %s (in this directory).
			# TYPE  DATABASE  USER  ADDRESS        METHOD
			local   all       all                  scram-sha-256
			host    all       all   127.0.0.1/32   scram-sha-256
			host    all       all   ::1/128        scram-sha-256
			""".formatted(PASSWORD_FILE);

	private static final String PGPASS = """
			# The password of the embedded PostgreSQL's users (workgraph, and the superuser postgres),
			# in libpq's pgpass format: PGPASSFILE=<this file> psql -h 127.0.0.1 -p <port> -U workgraph workgraph
			# Changed here, it is the password from the next start of the service on.
			*:*:*:*:%s
			""";

	private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

	/** Single-user mode may first replay the write-ahead log of a server that crashed. */
	private static final Duration SINGLE_USER_TIMEOUT = Duration.ofSeconds(90);

	private final Path dataDir;

	private final Path serverLog;

	private final boolean fresh;

	private final String password;

	private final boolean passwordIsNew;

	private final Path socketDirectory;

	private ServerAccess(Path dataDir, Path serverLog, boolean fresh, String password, boolean passwordIsNew,
			Path socketDirectory) {
		this.dataDir = dataDir;
		this.serverLog = serverLog;
		this.fresh = fresh;
		this.password = password;
		this.passwordIsNew = passwordIsNew;
		this.socketDirectory = socketDirectory;
	}

	/**
	 * Reads the data directory's password, or makes one (written once the cluster
	 * exists), and creates the socket's private directory. The server log, beside the
	 * data directory, is made readable by its owner only: it quotes statements that
	 * failed.
	 */
	static ServerAccess prepare(Path dataDir, Path serverLog, boolean fresh) throws IOException {
		if (posix()) {
			if (Files.exists(serverLog)) {
				Files.setPosixFilePermissions(serverLog, OWNER_ONLY);
			}
			else {
				Files.createFile(serverLog, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
			}
		}
		Path file = dataDir.resolve(PASSWORD_FILE);
		boolean exists = Files.exists(file);
		String password = exists ? passwordIn(file) : newPassword();
		return new ServerAccess(dataDir, serverLog, fresh, password, !exists, privateSocketDirectory());
	}

	String password() {
		return this.password;
	}

	/** The socket's directory (null where the file system has no POSIX permissions). */
	Path socketDirectory() {
		return this.socketDirectory;
	}

	/**
	 * Locks the cluster down before its server starts: the library's data directory
	 * customizer, run after initdb (which lets everyone in) and before the server starts.
	 */
	void secure(File directory) {
		try {
			Path hba = this.dataDir.resolve("pg_hba.conf");
			if (!Files.exists(hba) || !Files.readString(hba, StandardCharsets.UTF_8).equals(PG_HBA)) {
				if (!this.fresh) {
					log.warn("The embedded PostgreSQL in {} let connections in without proving a password (as "
							+ "earlier versions set it up): from now on every connection needs the password in {}",
							this.dataDir, this.dataDir.resolve(PASSWORD_FILE));
				}
				writeOwnerOnly(hba, PG_HBA);
			}
			setSuperuserPassword();
			Path file = this.dataDir.resolve(PASSWORD_FILE);
			if (this.passwordIsNew) {
				writeOwnerOnly(file, PGPASS.formatted(this.password));
			}
			else if (posix()) {
				Files.setPosixFilePermissions(file, OWNER_ONLY);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Removes the socket's directory, once the server has stopped. */
	@Override
	public void close() {
		if (this.socketDirectory == null) {
			return;
		}
		try {
			Files.deleteIfExists(this.socketDirectory);
		}
		catch (IOException ex) {
			log.debug("Could not remove the embedded PostgreSQL's socket directory {}", this.socketDirectory, ex);
		}
	}

	/**
	 * The superuser's password, set with no server running ({@code postgres --single}),
	 * as a SCRAM verifier computed here: the password itself never reaches the server,
	 * and no statement is logged, even on error.
	 */
	private void setSuperuserPassword() throws IOException {
		Path workingDirectory = PostgresBinaries.workingDirectory();
		List<String> command = new ArrayList<>();
		if (LinuxUtils.isUnshareAvailable()) {
			// As root, as the library runs every server program (PostgreSQL refuses
			// root).
			command.addAll(List.of("unshare", "-U"));
		}
		command.addAll(List.of(PostgresBinaries.INSTANCE.program(workingDirectory, "postgres").toString(), "--single",
				"-D", this.dataDir.toString(), "-c", "log_min_error_statement=panic", "-c", "log_min_messages=warning",
				SUPERUSER));
		long logged = Files.exists(this.serverLog) ? Files.size(this.serverLog) : 0;
		ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(this.serverLog.toFile());
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(toLog).start();
		try (OutputStream input = process.getOutputStream()) {
			String statement = PasswordUtil.genAlterUserPasswordSQL(SUPERUSER, this.password.toCharArray(),
					"scram-sha-256");
			input.write((statement + "\n").getBytes(StandardCharsets.UTF_8));
		}
		catch (SQLException ex) {
			process.destroyForcibly();
			throw new IOException(ex.getMessage(), ex);
		}
		int exit = waitFor(process);
		if (exit != 0 || reportedAnError(logged)) {
			throw new IOException(
					"could not set the password of '" + SUPERUSER + "' (postgres --single exited with " + exit + ")");
		}
	}

	private static int waitFor(Process process) throws IOException {
		try {
			if (!process.waitFor(SINGLE_USER_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IOException("postgres --single did not finish within " + SINGLE_USER_TIMEOUT);
			}
			return process.exitValue();
		}
		catch (InterruptedException ex) {
			process.destroyForcibly();
			Thread.currentThread().interrupt();
			throw new IOException("interrupted while setting the password", ex);
		}
	}

	/**
	 * Whether single-user mode wrote an error to the server log after {@code offset}: it
	 * reports a failed statement and still exits with 0.
	 */
	private boolean reportedAnError(long offset) throws IOException {
		try (RandomAccessFile log = new RandomAccessFile(this.serverLog.toFile(), "r")) {
			byte[] output = new byte[(int) Math.max(0, log.length() - offset)];
			log.seek(offset);
			log.readFully(output);
			String text = new String(output, StandardCharsets.UTF_8);
			return text.contains("ERROR:") || text.contains("FATAL:") || text.contains("PANIC:");
		}
	}

	/** The password of a pgpass line ({@code host:port:database:user:password}). */
	private static String passwordIn(Path file) throws IOException {
		for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
			if (line.isBlank() || line.startsWith("#")) {
				continue;
			}
			List<String> fields = new ArrayList<>();
			StringBuilder field = new StringBuilder();
			for (int i = 0; i < line.length(); i++) {
				char c = line.charAt(i);
				if (c == '\\' && i + 1 < line.length()) {
					field.append(line.charAt(++i));
				}
				else if (c == ':' && fields.size() < 4) {
					fields.add(field.toString());
					field.setLength(0);
				}
				else {
					field.append(c);
				}
			}
			if (fields.size() == 4 && !field.isEmpty()) {
				return field.toString();
			}
			break;
		}
		throw new EmbeddedDatabaseUnavailable(
				file + " holds no password line in libpq's pgpass format (*:*:*:*:password).",
				"Correct that line, or delete the file: the next start then makes a new password.", null);
	}

	private static String newPassword() {
		byte[] random = new byte[32];
		new SecureRandom().nextBytes(random);
		return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
	}

	/**
	 * A directory of the temporary directory that only this OS user may enter (short, as
	 * socket paths must be).
	 */
	private static Path privateSocketDirectory() throws IOException {
		if (!posix()) {
			return null;
		}
		Path directory = Files.createTempDirectory(SOCKET_DIRECTORY_PREFIX,
				PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
		if (directory.toString().contains("'")) {
			Files.delete(directory);
			throw new IOException("the temporary directory's path has a quote, which PostgreSQL's options cannot "
					+ "carry: " + directory);
		}
		return directory;
	}

	/** Replaces a file at once, never readable by others at any moment. */
	private static void writeOwnerOnly(Path file, String content) throws IOException {
		Path next = file.resolveSibling(file.getFileName() + ".new");
		Files.deleteIfExists(next);
		FileAttribute<?>[] ownerOnly = posix()
				? new FileAttribute<?>[] { PosixFilePermissions.asFileAttribute(OWNER_ONLY) } : new FileAttribute<?>[0];
		Files.createFile(next, ownerOnly);
		Files.writeString(next, content, StandardCharsets.UTF_8);
		Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
	}

	private static boolean posix() {
		return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
	}

}
