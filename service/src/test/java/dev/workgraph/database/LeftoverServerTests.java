package dev.workgraph.database;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code postmaster.pid} that names no running PostgreSQL is stale and removed,
 * whatever process now has its number. (A server that is still running is stopped: see
 * the killed-service test among the fault-injection tests.)
 */
class LeftoverServerTests {

	@TempDir
	Path dataDir;

	@Test
	void aPidFileOfAProcessThatIsGoneIsRemoved() throws Exception {
		Process gone = new ProcessBuilder("true").start();
		gone.waitFor();
		Path pidFile = writePidFile(gone.pid());
		LeftoverServer.clear(this.dataDir);
		assertThat(pidFile).doesNotExist();
	}

	@Test
	void aPidFileWhoseNumberNowBelongsToAnotherProgramIsRemovedAndTheProgramLeftAlone() throws IOException {
		// As after a reboot or in a new container: the number is taken by something else.
		Path pidFile = writePidFile(ProcessHandle.current().pid());
		LeftoverServer.clear(this.dataDir);
		assertThat(pidFile).doesNotExist();
		assertThat(ProcessHandle.current().isAlive()).isTrue();
	}

	@Test
	void aDirectoryWithoutAPidFileIsUntouched() throws IOException {
		Path conf = Files.writeString(this.dataDir.resolve("postgresql.conf"), "port = 5432\n");
		LeftoverServer.clear(this.dataDir);
		assertThat(conf).hasContent("port = 5432");
	}

	private Path writePidFile(long pid) throws IOException {
		return Files.writeString(this.dataDir.resolve("postmaster.pid"),
				pid + "\n" + this.dataDir + "\n1700000000\n5432\n/tmp\nlocalhost\n");
	}

}
