package dev.workgraph.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.workgraph.access.HostileTest.Issued;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.FreshDatabase;
import dev.workgraph.testing.ServiceInstance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Token secrets are shown once, in the answer to {@code POST /tokens}, and nowhere else:
 * not in the log (at debug level, across creation, use, listing, refused attempts and
 * revocation), not in problems, not in {@code GET /tokens}. The one exception is the
 * bootstrap token a service creates for itself when it starts with no token at all: it
 * appears on exactly one log line, the one that tells the operator how to use it.
 */
@ExtendWith(OutputCaptureExtension.class)
class TokensNeverLeakTests {

	/**
	 * What a bearer token can be made of (RFC 6750, b64token), at a length worth trying.
	 */
	private static final Pattern CANDIDATE = Pattern.compile("[A-Za-z0-9._~+/-]{20,}=*");

	/**
	 * A secret leaks when any run of this many of its characters shows up; a short prefix
	 * used as a label would not trip it, a truncated or split secret would.
	 */
	private static final int WINDOW = 16;

	@Test
	void secretsAppearOnlyInTheirCreationAnswerAndTheBootstrapLineOnce(CapturedOutput output) {
		try (FreshDatabase database = FreshDatabase.create();
				ServiceInstance service = ServiceInstance.start("secrecy", database,
						"--logging.level.dev.workgraph=debug", "--logging.level.org.springframework.security=debug")) {
			Api api = service.api();
			String bootstrap = bootstrapToken(output.toString(), api);
			assertThat(linesContaining(output.toString(), bootstrap)).as("log lines with the bootstrap token")
				.hasSize(1);
			Api admin = api.as(bootstrap);

			List<Issued> issued = new ArrayList<>();
			issued.add(HostileTest.issue(admin, "secrecy-admin", "admin", null));
			issued.add(HostileTest.issue(admin, "secrecy-operator", "operator", null));
			issued.add(HostileTest.issue(admin, "secrecy-worker", "worker", "secrecy-worker"));
			issued.add(HostileTest.issue(admin, "secrecy-intruder", "worker", "secrecy-intruder"));
			Issued otherAdmin = issued.get(0);
			Issued operator = issued.get(1);
			Issued worker = issued.get(2);
			Issued intruder = issued.get(3);
			List<String> secrets = new ArrayList<>(issued.stream().map(Issued::token).toList());
			secrets.add(bootstrap);
			List<Api.Response> answers = new ArrayList<>();

			// Use: an item, claimed, completed; reads by everyone entitled.
			Api.Response item = api.as(operator.token()).post("/items", Map.of("title", "secret work"));
			assertThat(item.status()).as(item.toString()).isEqualTo(201);
			Api.Response claim = api.as(worker.token()).post("/claims", Map.of());
			assertThat(claim.status()).as(claim.toString()).isEqualTo(201);
			String lease = claim.body().path("lease").path("id").asString();
			long epoch = claim.body().path("lease").path("epoch").asLong();
			answers.add(item);
			answers.add(claim);
			answers.add(api.as(otherAdmin.token()).get("/items"));
			answers.add(api.as(worker.token()).get("/leases/" + lease));

			// Refused attempts: another worker, altered, cut and misplaced tokens, the
			// wrong
			// scheme.
			answers.add(api.as(intruder.token())
				.post("/leases/" + lease + "/complete", Map.of("epoch", epoch, "result", Map.of())));
			answers.add(api.as(intruder.token()).post("/claims", Map.of("workerId", "secrecy-worker")));
			answers.add(api.as(worker.token()).get("/tokens"));
			answers.add(api.as(operator.token()).post("/claims", Map.of()));
			for (String secret : secrets) {
				String altered = secret.substring(0, secret.length() - 1)
						+ ((secret.charAt(secret.length() - 1) == 'A') ? 'B' : 'A');
				answers.add(api.as(altered).get("/items"));
				answers.add(api.as(secret.substring(0, secret.length() - 1)).get("/items"));
				answers.add(api.as(secret + "x").get("/items"));
				answers.add(api.as(secret + " " + secret).get("/items"));
				answers.add(api.withAuthorization(secret).get("/items"));
				answers.add(api
					.withAuthorization("Basic "
							+ Base64.getEncoder().encodeToString(("admin:" + secret).getBytes(StandardCharsets.UTF_8)))
					.get("/items"));
			}

			// Listing, revoking, and using what was revoked.
			Api.Response listed = admin.get("/tokens");
			assertThat(listed.status()).as(listed.toString()).isEqualTo(200);
			assertThat(listed.body().path("tokens").findValuesAsString("id"))
				.containsAll(issued.stream().map(Issued::id).toList());
			assertThat(listed.body().path("tokens").findValues("token")).as("GET /tokens shows no secret").isEmpty();
			for (String secret : secrets) {
				assertThat(listed.raw().body()).as("GET /tokens").doesNotContain(window(secret));
				for (String hash : hashes(secret)) {
					assertThat(listed.raw().body()).as("GET /tokens shows a token's hash").doesNotContain(hash);
				}
			}
			HostileTest.revoke(admin, intruder);
			HostileTest.revoke(admin, otherAdmin);
			answers.add(api.as(intruder.token()).get("/leases/" + lease));
			answers.add(api.as(otherAdmin.token()).get("/tokens"));
			answers.add(admin.get("/tokens"));
			answers.add(api.as(worker.token())
				.post("/leases/" + lease + "/complete", Map.of("epoch", epoch, "result", Map.of("done", true))));

			for (Api.Response answer : answers) {
				String everything = answer.raw().body() + " " + answer.raw().headers().map();
				for (String secret : secrets) {
					for (String piece : windows(secret)) {
						assertThat(everything).as("answer %s %s echoes a token", answer.status(), answer.raw().uri())
							.doesNotContain(piece);
					}
				}
			}
			String log = output.toString();
			String bootstrapLine = linesContaining(log, bootstrap).get(0);
			String logWithoutBootstrapLine = log.replace(bootstrapLine, "");
			for (String secret : secrets) {
				for (String piece : windows(secret)) {
					assertThat(linesContaining(logWithoutBootstrapLine, piece)).as("log lines with a token's secret")
						.isEmpty();
				}
			}
		}
	}

	/**
	 * The token the service created for itself: the one word of the start-up log that
	 * works as an admin token. Found by trying, so that the wording of the line is the
	 * service's to choose.
	 */
	private static String bootstrapToken(String log, Api api) {
		Set<String> candidates = new LinkedHashSet<>();
		Matcher matcher = CANDIDATE.matcher(log);
		while (matcher.find()) {
			candidates.add(matcher.group());
		}
		List<String> working = new ArrayList<>();
		for (String candidate : candidates) {
			if (candidate.contains("/") || candidate.contains(".")) {
				continue; // paths, class and host names: not what the service generates
			}
			if (api.as(candidate).get("/tokens").status() == 200) {
				working.add(candidate);
			}
		}
		assertThat(working).as("admin tokens in the start-up log").hasSize(1);
		return working.get(0);
	}

	private static List<String> linesContaining(String text, String piece) {
		return text.lines().filter((line) -> line.contains(piece)).toList();
	}

	private static String window(String secret) {
		return secret.substring(secret.length() - Math.min(WINDOW, secret.length()));
	}

	/** Every run of {@link #WINDOW} characters of the secret. */
	private static List<String> windows(String secret) {
		if (secret.length() <= WINDOW) {
			return List.of(secret);
		}
		List<String> windows = new ArrayList<>();
		for (int i = 0; i + WINDOW <= secret.length(); i++) {
			windows.add(secret.substring(i, i + WINDOW));
		}
		return windows;
	}

	/**
	 * SHA-256 of the secret as hex, base64 and base64url: a stored hash is not for
	 * showing.
	 */
	private static List<String> hashes(String secret) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
			return List.of(HexFormat.of().formatHex(digest),
					Base64.getEncoder().withoutPadding().encodeToString(digest),
					Base64.getUrlEncoder().withoutPadding().encodeToString(digest));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
