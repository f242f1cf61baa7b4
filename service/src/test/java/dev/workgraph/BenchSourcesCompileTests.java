package dev.workgraph;

import java.io.IOException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import dev.workgraph.testing.RepositoryRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark (bench/run.sh) runs bench/src as a source program that nothing else
 * compiles, so a change to it that does not compile would only show at the next benchmark
 * run, hours later. This compiles it as the source launcher does: every file together.
 */
class BenchSourcesCompileTests {

	@Test
	void theBenchmarkCompiles(@TempDir Path classes) throws IOException {
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		assertThat(javac).as("a JDK's compiler (the build runs on a JDK)").isNotNull();
		List<String> arguments = new ArrayList<>(List.of("-d", classes.toString(), "-proc:none", "-Xlint:none"));
		try (Stream<Path> sources = Files.list(RepositoryRoot.path().resolve("bench/src"))) {
			sources.filter((file) -> file.toString().endsWith(".java")).map(Path::toString).forEach(arguments::add);
		}
		assertThat(arguments).as("bench/src's Java files").hasSizeGreaterThan(10);
		ByteArrayOutputStream errors = new ByteArrayOutputStream();

		int status = javac.run(null, errors, errors, arguments.toArray(String[]::new));

		assertThat(status).as("javac bench/src/*.java: %s", errors.toString(StandardCharsets.UTF_8)).isZero();
		assertThat(classes.resolve("Bench.class")).exists();
	}

}
