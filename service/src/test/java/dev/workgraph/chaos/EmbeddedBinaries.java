package dev.workgraph.chaos;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Locale;
import java.util.stream.Stream;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * The PostgreSQL server binaries that ship with the service (for its embedded database),
 * unpacked once per version into a cache directory, for machines without a PostgreSQL
 * installation. The archive is a whole distribution ({@code bin}, {@code lib},
 * {@code share}); its binaries find their libraries relative to themselves.
 */
final class EmbeddedBinaries {

	private EmbeddedBinaries() {
	}

	/** The {@code bin} directory, unpacked into the cache when it is not there yet. */
	static Path bin() {
		byte[] archive = archive();
		Path cache = cache();
		Path target = cache.resolve(digest(archive));
		if (!Files.isExecutable(target.resolve("bin/initdb"))) {
			unpack(archive, cache, target);
		}
		return target.resolve("bin");
	}

	/** Whether the binaries in {@code bin} are these, unpacked. */
	static boolean unpackedIn(Path bin) {
		return bin.toAbsolutePath().startsWith(cache());
	}

	private static Path cache() {
		return Path.of(System.getProperty("java.io.tmpdir"), "workgraph-postgres-binaries").toAbsolutePath();
	}

	private static byte[] archive() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String system = os.contains("mac") ? "Darwin" : os.contains("windows") ? "Windows" : "Linux";
		String arch = System.getProperty("os.arch");
		try (InputStream in = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system,
				"amd64".equals(arch) ? "x86_64" : arch)) {
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String digest(byte[] archive) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(archive)).substring(0, 16);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Unpacks into a private directory first and renames it into place, so that
	 * concurrent test runs never see a half-written distribution.
	 */
	private static void unpack(byte[] archive, Path cache, Path target) {
		try {
			Files.createDirectories(cache);
			Path staging = Files.createTempDirectory(cache, "unpacking-");
			try {
				extract(archive, staging);
				// A temporary directory is private; the server may run as another user.
				Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
				Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
			}
			catch (FileAlreadyExistsException | AtomicMoveNotSupportedException ex) {
				// Another run won the race (or left a broken copy, which initdb reports).
			}
			catch (IOException ex) {
				if (!Files.isDirectory(target)) {
					throw ex;
				}
			}
			finally {
				deleteRecursively(staging);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not unpack the embedded PostgreSQL binaries into " + target, ex);
		}
	}

	private static void extract(byte[] archive, Path directory) throws IOException {
		try (TarArchiveInputStream tar = new TarArchiveInputStream(
				new XZInputStream(new ByteArrayInputStream(archive)))) {
			TarArchiveEntry entry;
			while ((entry = tar.getNextEntry()) != null) {
				Path path = directory.resolve(entry.getName()).normalize();
				if (!path.startsWith(directory)) {
					throw new IOException("Archive entry outside the target: " + entry.getName());
				}
				if (entry.isDirectory()) {
					Files.createDirectories(path);
					continue;
				}
				Files.createDirectories(path.getParent());
				if (entry.isSymbolicLink()) {
					Files.createSymbolicLink(path, Path.of(entry.getLinkName()));
				}
				else if (entry.isLink()) {
					Files.createLink(path, directory.resolve(entry.getLinkName()).normalize());
				}
				else {
					Files.copy(tar, path);
					if ((entry.getMode() & 0100) != 0 || entry.getName().startsWith("bin/")) {
						path.toFile().setExecutable(true, false);
					}
				}
			}
		}
	}

	private static void deleteRecursively(Path directory) throws IOException {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> files = Files.walk(directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
	}

}
