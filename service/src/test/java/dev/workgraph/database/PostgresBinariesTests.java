package dev.workgraph.database;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The embedded PostgreSQL's programs are unpacked under the user's cache directory, in a
 * directory only its owner may enter, whatever mode it had.
 */
class PostgresBinariesTests {

	@TempDir
	Path cache;

	@Test
	void theProgramsLiveInADirectoryOnlyItsOwnerMayEnter() throws IOException {
		Files.createDirectories(this.cache.resolve("work-graph"),
				PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
		Path working = PostgresBinaries.workingDirectory(this.cache);
		assertThat(working).isEqualTo(this.cache.resolve("work-graph/postgres"));
		assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(working.getParent())))
			.isEqualTo("rwx------");
	}

	@Test
	void aCacheDirectoryThatCannotBeMadeSaysWhatToDo() throws IOException {
		Path file = Files.writeString(this.cache.resolve("a-file"), "not a directory");
		assertThatThrownBy(() -> PostgresBinaries.workingDirectory(file))
			.isInstanceOf(EmbeddedDatabaseUnavailable.class)
			.hasMessageContaining(file.resolve("work-graph").toString())
			.satisfies((failure) -> assertThat(((EmbeddedDatabaseUnavailable) failure).action())
				.contains("XDG_CACHE_HOME"));
	}

}
