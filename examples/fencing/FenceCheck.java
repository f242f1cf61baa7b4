/*
 * Checks a Work Graph fence token, with nothing but the JDK (17 or newer):
 *
 *   java FenceCheck.java --keys <jwks.json file or URL> [--state <dir>] [--issuer workgraph] [--item <id>] <token>
 *
 * 1. verifies the token's Ed25519 signature with the published key its header names (kid),
 * 2. checks its issuer, its expiry and (with --item) that it is for that item,
 * 3. with --state: refuses it when a higher epoch has been seen for the item, else records its epoch
 *    (one small file per item, updated under a file lock, so concurrent checks cannot both pass a
 *    lower epoch after a higher one).
 *
 * Prints "item=<id> epoch=<n> worker=<id> lease=<id>" on success. Exit status: 0 accepted, 1 refused
 * (a higher epoch was seen), 2 not a valid token, 64 wrong usage. See docs/fencing-outside.md.
 */

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class FenceCheck {

	/** The DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 raw key bytes follow. */
	private static final byte[] ED25519_SPKI_PREFIX = HexFormat.of().parseHex("302a300506032b6570032100");

	public static void main(String[] args) throws Exception {
		Map<String, String> options = new LinkedHashMap<>();
		String token = null;
		for (int i = 0; i < args.length; i++) {
			if (args[i].startsWith("--") && i + 1 < args.length) {
				options.put(args[i].substring(2), args[++i]);
			}
			else {
				token = args[i];
			}
		}
		if (token == null || !options.containsKey("keys")) {
			System.err.println("usage: java FenceCheck.java --keys <jwks file or URL> [--state <dir>] "
					+ "[--issuer workgraph] [--item <id>] <token>");
			System.exit(64);
		}
		Map<String, Object> claims;
		try {
			claims = verified(token, options.get("keys"));
			check(claims, options.getOrDefault("issuer", "workgraph"), options.get("item"));
		}
		catch (InvalidToken ex) {
			System.err.println("fence token refused: " + ex.getMessage());
			System.exit(2);
			return;
		}
		String item = (String) claims.get("sub");
		long epoch = ((Number) claims.get("epoch")).longValue();
		if (options.containsKey("state")) {
			long highest = raiseFence(Path.of(options.get("state")), item, epoch);
			if (highest > epoch) {
				System.err.println("fence token refused: item " + item + " epoch " + epoch
						+ " is stale, epoch " + highest + " has been seen (worker " + claims.get("wid") + ")");
				System.exit(1);
			}
		}
		System.out.println("item=" + item + " epoch=" + epoch + " worker=" + claims.get("wid") + " lease="
				+ claims.get("lid"));
	}

	/** The token's claims, once its signature checks out with the key its header names. */
	static Map<String, Object> verified(String token, String keys) throws Exception {
		String[] parts = token.split("\\.", -1);
		if (parts.length != 3) {
			throw new InvalidToken("not a compact JWS");
		}
		Map<String, Object> header = object(decode(parts[0]));
		if (!"EdDSA".equals(header.get("alg")) && !"Ed25519".equals(header.get("alg"))) {
			throw new InvalidToken("alg " + header.get("alg") + " is not EdDSA");
		}
		Map<String, Object> key = key(keys, (String) header.get("kid"));
		byte[] raw = Base64.getUrlDecoder().decode((String) key.get("x"));
		byte[] spki = new byte[ED25519_SPKI_PREFIX.length + raw.length];
		System.arraycopy(ED25519_SPKI_PREFIX, 0, spki, 0, ED25519_SPKI_PREFIX.length);
		System.arraycopy(raw, 0, spki, ED25519_SPKI_PREFIX.length, raw.length);
		PublicKey publicKey = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(spki));
		Signature signature = Signature.getInstance("Ed25519");
		signature.initVerify(publicKey);
		signature.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
		if (!signature.verify(Base64.getUrlDecoder().decode(parts[2]))) {
			throw new InvalidToken("bad signature");
		}
		return object(decode(parts[1]));
	}

	static void check(Map<String, Object> claims, String issuer, String item) {
		if (!issuer.equals(claims.get("iss"))) {
			throw new InvalidToken("issuer " + claims.get("iss") + " is not " + issuer);
		}
		if (!(claims.get("exp") instanceof Number exp) || exp.longValue() * 1000 <= System.currentTimeMillis()) {
			throw new InvalidToken("expired");
		}
		if (!(claims.get("epoch") instanceof Number) || !(claims.get("sub") instanceof String)) {
			throw new InvalidToken("no item or epoch");
		}
		if (item != null && !item.equals(claims.get("sub"))) {
			throw new InvalidToken("for item " + claims.get("sub") + ", not " + item);
		}
	}

	/**
	 * Records the epoch for the item unless a higher one is recorded; answers the highest
	 * epoch seen, this one included.
	 */
	static long raiseFence(Path state, String item, long epoch) throws IOException {
		if (!item.matches("[0-9a-fA-F-]{36}")) {
			throw new InvalidToken("item " + item + " is not a UUID");
		}
		Files.createDirectories(state);
		try (FileChannel file = FileChannel.open(state.resolve(item + ".epoch"), StandardOpenOption.CREATE,
				StandardOpenOption.READ, StandardOpenOption.WRITE); FileLock lock = file.lock()) {
			ByteBuffer buffer = ByteBuffer.allocate(32);
			file.read(buffer, 0);
			String seen = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII).trim();
			long highest = seen.isEmpty() ? 0 : Long.parseLong(seen);
			if (epoch > highest) {
				file.truncate(0);
				file.write(ByteBuffer.wrap(Long.toString(epoch).getBytes(StandardCharsets.US_ASCII)), 0);
				file.force(true);
				return epoch;
			}
			return highest;
		}
	}

	private static Map<String, Object> key(String keys, String kid) throws Exception {
		String json = keys.startsWith("http://") || keys.startsWith("https://")
				? HttpClient.newHttpClient()
					.send(HttpRequest.newBuilder(URI.create(keys)).build(), HttpResponse.BodyHandlers.ofString())
					.body()
				: Files.readString(Path.of(keys));
		for (Object candidate : (List<?>) object(json).get("keys")) {
			Map<?, ?> key = (Map<?, ?>) candidate;
			if (key.get("kid") != null && key.get("kid").equals(kid) && "OKP".equals(key.get("kty"))
					&& "Ed25519".equals(key.get("crv"))) {
				@SuppressWarnings("unchecked")
				Map<String, Object> found = (Map<String, Object>) key;
				return found;
			}
		}
		throw new InvalidToken("no published Ed25519 key " + kid);
	}

	private static String decode(String part) {
		try {
			return new String(Base64.getUrlDecoder().decode(part), StandardCharsets.UTF_8);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidToken("not base64url");
		}
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> object(String json) {
		Object value = new Json(json).value();
		if (!(value instanceof Map)) {
			throw new InvalidToken("not a JSON object");
		}
		return (Map<String, Object>) value;
	}

	static final class InvalidToken extends RuntimeException {

		InvalidToken(String message) {
			super(message);
		}

	}

	/** Just enough JSON: objects, arrays, strings, numbers, true, false, null. */
	static final class Json {

		private final String text;

		private int at;

		Json(String text) {
			this.text = text;
		}

		Object value() {
			skip();
			if (this.at >= this.text.length()) {
				throw new InvalidToken("truncated JSON");
			}
			char c = this.text.charAt(this.at);
			if (c == '{') {
				Map<String, Object> object = new LinkedHashMap<>();
				this.at++;
				skip();
				if (peek() == '}') {
					this.at++;
					return object;
				}
				do {
					skip();
					String name = string();
					skip();
					expect(':');
					object.put(name, value());
					skip();
				}
				while (next() == ',');
				this.at--;
				expect('}');
				return object;
			}
			if (c == '[') {
				List<Object> array = new ArrayList<>();
				this.at++;
				skip();
				if (peek() == ']') {
					this.at++;
					return array;
				}
				do {
					array.add(value());
					skip();
				}
				while (next() == ',');
				this.at--;
				expect(']');
				return array;
			}
			if (c == '"') {
				return string();
			}
			int start = this.at;
			while (this.at < this.text.length() && "{}[],: \t\r\n".indexOf(this.text.charAt(this.at)) < 0) {
				this.at++;
			}
			String word = this.text.substring(start, this.at);
			switch (word) {
				case "true":
					return Boolean.TRUE;
				case "false":
					return Boolean.FALSE;
				case "null":
					return null;
				default:
					try {
						return word.matches("-?\\d+") ? (Object) Long.parseLong(word) : (Object) Double.parseDouble(word);
					}
					catch (NumberFormatException ex) {
						throw new InvalidToken("bad JSON value " + word);
					}
			}
		}

		private String string() {
			expect('"');
			StringBuilder out = new StringBuilder();
			while (true) {
				char c = next();
				if (c == '"') {
					return out.toString();
				}
				if (c == '\\') {
					char escaped = next();
					switch (escaped) {
						case 'n' -> out.append('\n');
						case 't' -> out.append('\t');
						case 'r' -> out.append('\r');
						case 'b' -> out.append('\b');
						case 'f' -> out.append('\f');
						case 'u' -> {
							out.append((char) Integer.parseInt(this.text.substring(this.at, this.at + 4), 16));
							this.at += 4;
						}
						default -> out.append(escaped);
					}
				}
				else {
					out.append(c);
				}
			}
		}

		private void skip() {
			while (this.at < this.text.length() && Character.isWhitespace(this.text.charAt(this.at))) {
				this.at++;
			}
		}

		private char peek() {
			return (this.at < this.text.length()) ? this.text.charAt(this.at) : '\0';
		}

		private char next() {
			if (this.at >= this.text.length()) {
				throw new InvalidToken("truncated JSON");
			}
			return this.text.charAt(this.at++);
		}

		private void expect(char c) {
			if (next() != c) {
				throw new InvalidToken("bad JSON at " + (this.at - 1));
			}
		}

	}

}
