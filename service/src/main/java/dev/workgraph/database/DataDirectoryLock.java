package dev.workgraph.database;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive claim on a data directory for as long as this service runs, held as an OS
 * file lock beside the directory ({@code <data-dir>.lock}). The OS releases it when the
 * process dies however it dies, so a server still running on the directory while the lock
 * is free was left behind by a run that is gone.
 */
final class DataDirectoryLock implements AutoCloseable {

	private final FileChannel channel;

	private final FileLock lock;

	private DataDirectoryLock(FileChannel channel, FileLock lock) {
		this.channel = channel;
		this.lock = lock;
	}

	/** Takes the lock, or answers null when another running process holds it. */
	static DataDirectoryLock tryLock(Path dataDir) throws IOException {
		Path file = dataDir.resolveSibling(dataDir.getFileName() + ".lock");
		FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
		try {
			FileLock lock = tryLock(channel);
			if (lock == null) {
				channel.close();
				return null;
			}
			return new DataDirectoryLock(channel, lock);
		}
		catch (IOException | RuntimeException ex) {
			channel.close();
			throw ex;
		}
	}

	private static FileLock tryLock(FileChannel channel) throws IOException {
		try {
			return channel.tryLock();
		}
		catch (OverlappingFileLockException ex) {
			// Held by another service in this JVM (tests run several).
			return null;
		}
	}

	@Override
	public void close() throws IOException {
		try {
			this.lock.release();
		}
		finally {
			this.channel.close();
		}
	}

}
