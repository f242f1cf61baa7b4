package dev.workgraph.database;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.workgraph.testing.Api;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static dev.workgraph.database.EmbeddedService.api;
import static dev.workgraph.database.EmbeddedService.run;
import static dev.workgraph.database.EmbeddedService.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Any local user can connect to a server on the loopback interface, so the embedded
 * PostgreSQL lets in only those who prove its password, over TCP and over its socket, and
 * keeps that password and its socket where other users cannot reach them. These tests run
 * as root here, which may enter any directory: what they check is what PostgreSQL asks of
 * a connection and the files' modes and owners, which hold for every user.
 */
@ExtendWith(OutputCaptureExtension.class)
class EmbeddedDatabaseAccessTests {

	private static final String OWNER_ONLY_FILE = "rw-------";

	private static final String OWNER_ONLY_DIRECTORY = "rwx------";

	@TempDir
	Path workDir;

	@Test
	void everyConnectionMustProveThePasswordOverTcpAndOverTheSocket() throws Exception {
		Path dataDir = this.workDir.resolve("postgres");
		try (ConfigurableApplicationContext service = start(dataDir)) {
			Server server = Server.of(dataDir);
			for (String user : List.of("postgres", "workgraph")) {
				assertThat(AuthenticationAsked.overTcp(server.port(), user)).as(user + " over TCP")
					.isEqualTo(AuthenticationAsked.SCRAM);
				assertThat(AuthenticationAsked.overSocket(server.socket(), user)).as(user + " over the socket")
					.isEqualTo(AuthenticationAsked.SCRAM);
				assertThatThrownBy(() -> connect(server.port(), user, "")).as(user + " without a password")
					.isInstanceOf(SQLException.class);
				assertThatThrownBy(() -> connect(server.port(), user, "not-the-password"))
					.as(user + " with a wrong password")
					.isInstanceOf(SQLException.class)
					.hasMessageContaining("password authentication failed");
			}
			try (Connection superuser = connect(server.port(), "postgres", password(dataDir))) {
				assertThat(query(superuser, "select rolsuper from pg_roles where rolname = current_user"))
					.isEqualTo("t");
			}
			assertThat(api(service).get("/actuator/health").body().path("status").asString()).isEqualTo("UP");
		}
	}

	@Test
	void thePasswordAndTheLogAreReadableByTheirOwnerOnlyAndTheSocketIsInAPrivateDirectory(CapturedOutput output)
			throws Exception {
		Path dataDir = this.workDir.resolve("postgres");
		Path socketDirectory;
		try (ConfigurableApplicationContext service = start(dataDir)) {
			Path passwordFile = dataDir.resolve("pgpass");
			assertThat(permissions(passwordFile)).isEqualTo(OWNER_ONLY_FILE);
			assertThat(Files.getOwner(passwordFile).getName()).isEqualTo(System.getProperty("user.name"));
			assertThat(permissions(dataDir)).isEqualTo(OWNER_ONLY_DIRECTORY);
			assertThat(permissions(dataDir.resolveSibling("postgres.log"))).as("the server log")
				.isEqualTo(OWNER_ONLY_FILE);
			assertThat(Files.readString(passwordFile)).containsPattern("(?m)^\\*:\\*:\\*:\\*:[A-Za-z0-9_-]{43}$");

			Server server = Server.of(dataDir);
			socketDirectory = server.socket().getParent();
			assertThat(socketDirectory).isNotEqualTo(Path.of("/tmp"))
				.isNotEqualTo(Path.of(System.getProperty("java.io.tmpdir")));
			assertThat(permissions(socketDirectory)).isEqualTo(OWNER_ONLY_DIRECTORY);
			assertThat(Files.getOwner(socketDirectory).getName()).isEqualTo(System.getProperty("user.name"));
			assertThat(output.getOut()).contains("a socket in " + socketDirectory,
					"every connection needs the password in " + passwordFile);

			assertThat(hbaRules(dataDir)).isNotEmpty()
				.allSatisfy((rule) -> assertThat(rule).endsWith(" scram-sha-256"))
				.noneSatisfy((rule) -> assertThat(rule).contains("trust"));
			if ("root".equals(System.getProperty("user.name"))) {
				assertThat(asNobody("ls", socketDirectory.toString())).as("another user lists the socket directory")
					.contains("Permission denied");
			}
		}
		assertThat(socketDirectory).as("removed when the server stops").doesNotExist();
	}

	/**
	 * A data directory made by an earlier version (initdb with trust authentication, as
	 * the library does, and the service's user without a password) keeps its data and
	 * lets nobody in without the password from its next start on.
	 */
	@Test
	void aDataDirectoryThatTrustedEveryLocalConnectionIsUpgradedInPlace(CapturedOutput output) throws Exception {
		Path dataDir = this.workDir.resolve("postgres");
		String itemId;
		try (EmbeddedPostgres earlier = EmbeddedPostgres.builder()
			.setDataDirectory(dataDir)
			.setCleanDataDirectory(false)
			.setRegisterShutdownHook(false)
			.setLocaleConfig("locale", "C")
			.setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
			.setErrorRedirector(ProcessBuilder.Redirect.DISCARD)
			.start()) {
			assertThat(AuthenticationAsked.overTcp(earlier.getPort(), "postgres")).as("what earlier versions made")
				.isEqualTo(AuthenticationAsked.NOTHING);
			try (Connection connection = connect(earlier.getPort(), "postgres", "");
					Statement statement = connection.createStatement()) {
				statement.execute("create role workgraph login");
				statement.execute("create database workgraph owner workgraph");
			}
			try (ConfigurableApplicationContext before = run(
					"--spring.datasource.url=jdbc:postgresql://127.0.0.1:" + earlier.getPort() + "/workgraph",
					"--spring.datasource.username=workgraph", "--spring.datasource.password=")) {
				Api.Response created = api(before).post("/items", Map.of("title", "made before the upgrade"));
				assertThat(created.status()).as(created.toString()).isEqualTo(201);
				itemId = created.id().toString();
			}
		}
		assertThat(dataDir.resolve("pgpass")).doesNotExist();

		try (ConfigurableApplicationContext service = start(dataDir)) {
			assertThat(output.getOut()).contains("let connections in without proving a password");
			Server server = Server.of(dataDir);
			for (String user : List.of("postgres", "workgraph")) {
				assertThat(AuthenticationAsked.overTcp(server.port(), user)).isEqualTo(AuthenticationAsked.SCRAM);
				assertThat(AuthenticationAsked.overSocket(server.socket(), user)).isEqualTo(AuthenticationAsked.SCRAM);
			}
			assertThat(permissions(dataDir.resolve("pgpass"))).isEqualTo(OWNER_ONLY_FILE);
			assertThat(hbaRules(dataDir)).allSatisfy((rule) -> assertThat(rule).endsWith(" scram-sha-256"));
			Api.Response item = api(service).get("/items/" + itemId);
			assertThat(item.status()).as(item.toString()).isEqualTo(200);
			assertThat(item.body().path("title").asString()).isEqualTo("made before the upgrade");
		}
	}

	/**
	 * The password is the file's at every start: changed there, it is the password from
	 * the next start on.
	 */
	@Test
	void aPasswordChangedInTheFileIsThePasswordAfterTheNextStart() throws Exception {
		Path dataDir = this.workDir.resolve("postgres");
		start(dataDir).close();
		Path passwordFile = dataDir.resolve("pgpass");
		String old = password(dataDir);
		Files.writeString(passwordFile, Files.readString(passwordFile).replace(old, "chosen\\:by-me"));
		try (ConfigurableApplicationContext service = start(dataDir)) {
			int port = Server.of(dataDir).port();
			assertThatThrownBy(() -> connect(port, "workgraph", old)).isInstanceOf(SQLException.class);
			try (Connection connection = connect(port, "workgraph", "chosen:by-me")) {
				assertThat(query(connection, "select current_user")).isEqualTo("workgraph");
			}
		}
	}

	/** Where the running server listens, as it says in {@code postmaster.pid}. */
	private record Server(int port, Path socket) {

		static Server of(Path dataDir) throws IOException {
			List<String> pid = Files.readAllLines(dataDir.resolve("postmaster.pid"));
			int port = Integer.parseInt(pid.get(3).strip());
			return new Server(port, Path.of(pid.get(4).strip(), ".s.PGSQL." + port));
		}

	}

	private static String password(Path dataDir) throws IOException {
		return Files.readAllLines(dataDir.resolve("pgpass"))
			.stream()
			.filter((line) -> !line.startsWith("#"))
			.findFirst()
			.orElseThrow()
			.substring("*:*:*:*:".length());
	}

	private static Connection connect(int port, String user, String password) throws SQLException {
		return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", user, password);
	}

	private static String query(Connection connection, String sql) throws SQLException {
		try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
			rows.next();
			return rows.getString(1);
		}
	}

	private static String permissions(Path path) throws IOException {
		return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
	}

	/** The rules of {@code pg_hba.conf}, without comments and blank lines. */
	private static List<String> hbaRules(Path dataDir) throws IOException {
		return Files.readAllLines(dataDir.resolve("pg_hba.conf"))
			.stream()
			.map(String::strip)
			.filter((line) -> !line.isEmpty() && !line.startsWith("#"))
			.toList();
	}

	/** What a command prints when the unprivileged user {@code nobody} runs it. */
	private static String asNobody(String... command) throws IOException, InterruptedException {
		List<String> line = new java.util.ArrayList<>(List.of("runuser", "-u", "nobody", "--"));
		line.addAll(List.of(command));
		Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
		String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
		return printed;
	}

}
