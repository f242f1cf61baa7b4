package dev.workgraph.fence;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.InstalledTools;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.RepositoryRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The examples of docs/fencing-outside.md (examples/fencing), run as their users would
 * run them against this service: a downstream store, a deploy script, a git pre-receive
 * hook and a SQL table, each fed by a stale worker (epoch 1, which handed the item off)
 * and the current one (epoch 2). The current worker's write lands; the stale one's,
 * arriving after it, is refused; a forged token is refused everywhere.
 */
class FencingOutsideExamplesTests extends LeaseTestSupport {

	private static final Path EXAMPLES = RepositoryRoot.path().resolve("examples/fencing");

	@TempDir
	Path dir;

	private String stale;

	private String current;

	private Map<String, String> environment;

	@BeforeEach
	void aStaleAndACurrentWorker() {
		createItem("deploy the service");
		JsonNode first = claim("worker-1");
		this.stale = first.path("lease").path("fenceToken").asString();
		Api.Response handed = handOff(first, "worker-2");
		assertCreated(handed);
		this.current = handed.body().path("lease").path("fenceToken").asString();
		this.environment = new HashMap<>();
		this.environment.put("JAVA", ProcessHandle.current().info().command().orElseThrow());
		this.environment.put("FENCE_CHECK", EXAMPLES.resolve("FenceCheck.java").toString());
		this.environment.put("FENCE_KEYS", this.api.base() + "/.well-known/jwks.json");
		this.environment.put("FENCE_STATE", this.dir.resolve("fences").toString());
	}

	@AfterEach
	void dropTheExampleTables() {
		this.jdbc.sql("drop table if exists item_fences, reports").update();
	}

	@Test
	void theStoreRefusesTheStaleWorkerAfterTheCurrentOneWrote() throws Exception {
		assertThat(fenceCheck(this.current).status()).isZero();
		Run stale = fenceCheck(this.stale);
		assertThat(stale.status()).as(stale.output()).isEqualTo(1);
		assertThat(stale.output()).contains("epoch 1 is stale, epoch 2 has been seen");
		assertThat(fenceCheck(this.current).status()).isZero();
		assertThat(fenceCheck(forged(this.current)).status()).isEqualTo(2);
	}

	@Test
	void theDeployScriptDeploysForTheCurrentHolderOnly() throws Exception {
		Path deployed = Files.createDirectories(this.dir.resolve("deployed"));
		this.environment.put("DEPLOY_DIR", deployed.toString());
		Path release2 = Files.writeString(this.dir.resolve("release-2.tar"), "current");
		Path release1 = Files.writeString(this.dir.resolve("release-1.tar"), "stale");
		Run ok = run(List.of(EXAMPLES.resolve("deploy.sh").toString(), this.current, release2.toString()));
		assertThat(ok.status()).as(ok.output()).isZero();
		Run refused = run(List.of(EXAMPLES.resolve("deploy.sh").toString(), this.stale, release1.toString()));
		assertThat(refused.status()).as(refused.output()).isEqualTo(1);
		try (var files = Files.list(deployed)) {
			assertThat(files.map((file) -> file.getFileName().toString())).containsExactly("release-2.tar");
		}
	}

	@Test
	void thePreReceiveHookAcceptsPushesFromTheCurrentHolderOnly() throws Exception {
		if (InstalledTools.onPath("git") == null) {
			InstalledTools.missing("git is not installed: the pre-receive hook's tests are skipped");
		}
		Path origin = this.dir.resolve("origin.git");
		Path work = this.dir.resolve("work");
		git(this.dir, "init", "-q", "--bare", origin.toString());
		git(origin, "config", "receive.advertisePushOptions", "true");
		Path hook = origin.resolve("hooks/pre-receive");
		Files.copy(EXAMPLES.resolve("pre-receive"), hook);
		assertThat(hook.toFile().setExecutable(true)).isTrue();
		git(this.dir, "clone", "-q", origin.toString(), work.toString());
		commit(work, "current.txt");
		assertThat(push(work, this.current).status()).isZero();
		commit(work, "stale.txt");
		Run stale = push(work, this.stale);
		assertThat(stale.status()).as(stale.output()).isNotZero();
		assertThat(stale.output()).contains("push refused");
		Run none = run(List.of("git", "-C", work.toString(), "push", "-q", "origin", "HEAD"));
		assertThat(none.status()).as(none.output()).isNotZero();
		assertThat(none.output()).contains("no fence token");
		assertThat(git(origin, "log", "--format=%s").output().strip()).isEqualTo("current.txt");
	}

	@Test
	void theTableTakesTheCurrentHoldersWriteAndRefusesTheStaleOne() throws Exception {
		if (InstalledTools.onPath("psql") == null) {
			InstalledTools.missing("psql is not installed: the fenced table's tests are skipped");
		}
		String database = this.jdbc.sql("select current_database()").query(String.class).single();
		this.environment.put("PGDATABASE", database);
		this.environment.put("PGHOST", "127.0.0.1");
		this.environment.put("PGUSER", this.jdbc.sql("select current_user").query(String.class).single());
		Path script = EXAMPLES.resolve("fenced-write.sh");
		Run ok = run(List.of(script.toString(), this.current, "built by worker-2"));
		assertThat(ok.status()).as(ok.output()).isZero();
		Run refused = run(List.of(script.toString(), this.stale, "built by worker-1"));
		assertThat(refused.status()).as(refused.output()).isEqualTo(1);
		assertThat(run(List.of(script.toString(), forged(this.current), "forged")).status()).isEqualTo(2);
		assertThat(this.jdbc.sql("select body from reports").query(String.class).list())
			.containsExactly("built by worker-2");
	}

	private Run fenceCheck(String token) throws Exception {
		return run(List.of(this.environment.get("JAVA"), this.environment.get("FENCE_CHECK"), "--keys",
				this.environment.get("FENCE_KEYS"), "--state", this.environment.get("FENCE_STATE"), token));
	}

	/** The token with its payload changed (epoch 9) but its signature kept. */
	private static String forged(String token) {
		String[] parts = token.split("\\.");
		String payload = new String(java.util.Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
			.replaceFirst("\"epoch\":\\d+", "\"epoch\":9");
		return parts[0] + "."
				+ java.util.Base64.getUrlEncoder()
					.withoutPadding()
					.encodeToString(payload.getBytes(StandardCharsets.UTF_8))
				+ "." + parts[2];
	}

	private void commit(Path work, String file) throws Exception {
		Files.writeString(work.resolve(file), file);
		git(work, "add", file);
		git(work, "-c", "user.name=agent", "-c", "user.email=agent@example.com", "commit", "-q", "-m", file);
	}

	private Run push(Path work, String token) throws Exception {
		return run(List.of("git", "-C", work.toString(), "push", "-q", "-o", "fence=" + token, "origin", "HEAD"));
	}

	private Run git(Path in, String... args) throws Exception {
		List<String> command = new ArrayList<>(List.of("git", "-C", in.toString()));
		command.addAll(List.of(args));
		Run run = run(command);
		assertThat(run.status()).as("%s: %s", command, run.output()).isZero();
		return run;
	}

	private Run run(List<String> command) throws IOException, InterruptedException {
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().putAll(this.environment);
		Process process = builder.start();
		process.getOutputStream().close();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
		return new Run(process.exitValue(), output);
	}

	private record Run(int status, String output) {
	}

}
