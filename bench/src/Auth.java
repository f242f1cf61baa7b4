import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bearer tokens for every generator. The run starts the service with a bootstrap admin token
 * of its own ({@code WORKGRAPH_SECURITY_BOOTSTRAP_ADMIN_TOKEN}) and mints one worker token per
 * worker id with {@code POST /tokens}. A service without token management (404 / 405) gets
 * the admin token on every request instead, which a service without security ignores: the
 * header is always sent, so the figures include its cost once it means something.
 */
final class Auth {

	final String adminToken;

	/** "minted" (worker tokens), or why every request carries the admin token. */
	final String mode;

	private final Map<String, String> workerTokens;

	private Auth(String adminToken, String mode, Map<String, String> workerTokens) {
		this.adminToken = adminToken;
		this.mode = mode;
		this.workerTokens = workerTokens;
	}

	static String newAdminToken() {
		byte[] b = new byte[32];
		new SecureRandom().nextBytes(b);
		return "wgbench-" + HexFormat.of().formatHex(b);
	}

	static Auth mint(int port, String adminToken, List<String> workerIds) throws IOException, InterruptedException {
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		Map<String, String> tokens = new LinkedHashMap<>();
		for (String id : workerIds) {
			HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/tokens"))
				.header("Content-Type", "application/json")
				.header("Authorization", "Bearer " + adminToken)
				.POST(HttpRequest.BodyPublishers
					.ofString("{\"name\":\"bench " + id + "\",\"role\":\"worker\",\"workerId\":\"" + id + "\"}"))
				.build(), HttpResponse.BodyHandlers.ofString());
			if (r.statusCode() == 404 || r.statusCode() == 405) {
				return new Auth(adminToken, "no token endpoint (POST /tokens answered " + r.statusCode()
						+ "): every request sends the bootstrap admin token", Map.of());
			}
			if (r.statusCode() != 201) {
				throw new IOException("POST /tokens for " + id + " answered " + r.statusCode() + ": " + r.body());
			}
			tokens.put(id, (String) Json.object(r.body()).get("token"));
		}
		return new Auth(adminToken, "minted " + tokens.size() + " worker tokens", tokens);
	}

	/** The token a worker sends: its own when tokens were minted, else the admin token. */
	String tokenFor(String workerId) {
		return this.workerTokens.getOrDefault(workerId, this.adminToken);
	}

	/** "workerId token" per line, as bench/wrk/workgraph.lua reads them. */
	Path writeWorkersFile(Path file, List<String> workerIds) throws IOException {
		StringBuilder out = new StringBuilder();
		for (String id : workerIds) {
			out.append(id).append(' ').append(tokenFor(id)).append('\n');
		}
		Files.writeString(file, out);
		return file;
	}

}
