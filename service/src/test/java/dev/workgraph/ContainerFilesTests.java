package dev.workgraph;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.workgraph.testing.RepositoryRoot;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import org.springframework.boot.convert.DurationStyle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The container files, checked where no Docker engine can build or run them: what the
 * image is built from and runs as, its health check, and a compose file whose service
 * waits for a healthy PostgreSQL that it is pointed at with matching credentials. (The CI
 * workflow builds the image and starts the compose stack on a runner with Docker.)
 */
class ContainerFilesTests {

	private static final Path ROOT = RepositoryRoot.path();

	@Test
	void theImageIsBuiltOnAJdk25AndRunsOnAJre25AsAnUnprivilegedUser() throws IOException {
		List<String> lines = instructions();
		List<String> stages = lines.stream().filter((line) -> line.startsWith("FROM ")).toList();
		assertThat(stages).hasSize(2);
		assertThat(stages.get(0)).matches("FROM eclipse-temurin:25-jdk AS build");
		assertThat(stages.get(1)).isEqualTo("FROM eclipse-temurin:25-jre");
		List<String> runtime = lines.subList(lines.indexOf(stages.get(1)), lines.size());
		assertThat(runtime).filteredOn((line) -> line.startsWith("USER "))
			.singleElement()
			.satisfies((user) -> assertThat(user).doesNotContain("root").doesNotMatch("USER 0(:.*)?"));
		assertThat(runtime).filteredOn((line) -> line.startsWith("ENTRYPOINT "))
			.singleElement()
			.satisfies((entrypoint) -> assertThat(entrypoint).startsWith("ENTRYPOINT [\"java\""));
	}

	@Test
	void theImageChecksHealthAndRefusesToRunWithoutADatabase() throws IOException {
		List<String> lines = instructions();
		assertThat(lines).filteredOn((line) -> line.startsWith("HEALTHCHECK "))
			.singleElement()
			.satisfies((check) -> assertThat(check).contains("/actuator/health", "${SERVER_PORT}"));
		assertThat(lines).anySatisfy((line) -> assertThat(line).startsWith("ENV ")
			.contains("WORKGRAPH_EMBEDDED_DATABASE_ENABLED=false")
			.contains("SERVER_PORT=8080"));
	}

	@Test
	void theImageBuildCopiesOnlyWhatExistsAndIsNotIgnored() throws IOException {
		List<String> ignore = Files.readAllLines(ROOT.resolve(".dockerignore"));
		List<String> sources = instructions().stream()
			.filter((line) -> line.startsWith("COPY ") && !line.contains("--from"))
			.flatMap((line) -> {
				List<String> words = List.of(line.split("\\s+"));
				return words.subList(1, words.size() - 1).stream();
			})
			.toList();
		assertThat(sources).contains("mvnw", "pom.xml", "service/src/");
		// Maven refuses a reactor whose module directories are missing, even with -pl.
		String parent = Files.readString(ROOT.resolve("pom.xml"));
		Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(parent);
		while (module.find()) {
			assertThat(sources).as("the image build copies every module's pom").contains(module.group(1) + "/pom.xml");
		}
		for (String source : sources) {
			assertThat(ROOT.resolve(source)).as("COPY source").exists();
			assertThat(ignore).as(".dockerignore lets " + source + " through").contains("!" + source);
		}
		String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
		String artifactId = Files.readString(ROOT.resolve("service/pom.xml"))
			.replaceAll("(?s).*?</parent>\\s*<artifactId>([^<]+)</artifactId>.*", "$1");
		assertThat(dockerfile).contains("service/target/" + artifactId + "-*.jar");
	}

	@Test
	@SuppressWarnings("unchecked")
	void composeStartsTheServiceAgainstAHealthyPostgresWithMatchingCredentials() throws IOException {
		Map<String, Object> compose = yaml(ROOT.resolve("docker-compose.yml"));
		Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>) compose.get("services");
		assertThat(services).containsOnlyKeys("postgres", "workgraph");
		Map<String, Object> postgres = services.get("postgres");
		Map<String, Object> workgraph = services.get("workgraph");

		assertThat((String) postgres.get("image")).matches("postgres:(1[5-9]|[2-9]\\d)(\\D.*)?");
		assertThat(postgres).containsKey("healthcheck");
		assertThat(workgraph).containsEntry("build", ".");
		assertThat(workgraph.get("depends_on")).isEqualTo(Map.of("postgres", Map.of("condition", "service_healthy")));

		Map<String, String> database = (Map<String, String>) postgres.get("environment");
		Map<String, String> service = (Map<String, String>) workgraph.get("environment");
		URI url = URI.create(service.get("SPRING_DATASOURCE_URL").substring("jdbc:".length()));
		assertThat(url.getHost()).isEqualTo("postgres");
		assertThat(url.getPath()).isEqualTo("/" + database.get("POSTGRES_DB"));
		assertThat(service).containsEntry("SPRING_DATASOURCE_USERNAME", database.get("POSTGRES_USER"))
			.containsEntry("SPRING_DATASOURCE_PASSWORD", database.get("POSTGRES_PASSWORD"));
	}

	@Test
	@SuppressWarnings("unchecked")
	void composeGivesTheServiceLongerToStopThanItsShutdownGracePeriod() throws IOException {
		Map<String, Object> compose = yaml(ROOT.resolve("docker-compose.yml"));
		Map<String, Object> workgraph = ((Map<String, Map<String, Object>>) compose.get("services")).get("workgraph");
		Map<String, Object> application = yaml(ROOT.resolve("service/src/main/resources/application.yml"));
		Map<String, Object> lifecycle = (Map<String, Object>) ((Map<String, Object>) application.get("spring"))
			.get("lifecycle");
		Duration grace = DurationStyle.detectAndParse((String) lifecycle.get("timeout-per-shutdown-phase"));
		Duration stop = DurationStyle.detectAndParse((String) workgraph.get("stop_grace_period"));
		assertThat(stop).isGreaterThanOrEqualTo(grace.plusSeconds(5));
	}

	/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
	private static List<String> instructions() throws IOException {
		String text = Files.readString(ROOT.resolve("Dockerfile"), StandardCharsets.UTF_8)
			.replaceAll("(?m)^\\s*#.*\\n", "")
			.replaceAll("\\\\\\n\\s*", " ");
		return text.lines().map(String::strip).filter((line) -> !line.isEmpty()).toList();
	}

	private static Map<String, Object> yaml(Path file) throws IOException {
		return new Yaml().load(Files.readString(file, StandardCharsets.UTF_8));
	}

}
