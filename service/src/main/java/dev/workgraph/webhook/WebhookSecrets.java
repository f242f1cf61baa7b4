package dev.workgraph.webhook;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks secrets and signatures: a secret is {@code whsec_} and a key of 24 to
 * 64 bytes in base64; a signature is {@code v1,} and the base64 HMAC-SHA256 of
 * {@code <webhook-id>.<webhook-timestamp>.<body>} under that key.
 */
final class WebhookSecrets {

	static final String PREFIX = "whsec_";

	private static final SecureRandom RANDOM = new SecureRandom();

	private WebhookSecrets() {
	}

	static String newSecret() {
		byte[] key = new byte[32];
		RANDOM.nextBytes(key);
		return PREFIX + Base64.getEncoder().encodeToString(key);
	}

	/** Why this is no usable secret, or null when it is one. */
	static String refusal(String secret) {
		if (!secret.startsWith(PREFIX)) {
			return "must start with " + PREFIX + " followed by the key in base64";
		}
		try {
			int length = key(secret).length;
			return (length >= 24 && length <= 64) ? null : "must hold a key of 24 to 64 bytes";
		}
		catch (IllegalArgumentException ex) {
			return "must start with " + PREFIX + " followed by the key in base64";
		}
	}

	static String sign(String secret, String messageId, long timestamp, byte[] body) {
		try {
			Mac mac = Mac.getInstance("HmacSHA256");
			mac.init(new SecretKeySpec(key(secret), "HmacSHA256"));
			mac.update((messageId + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
			return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
		}
		catch (NoSuchAlgorithmException | InvalidKeyException ex) {
			throw new IllegalStateException("HmacSHA256 is part of every JDK", ex);
		}
	}

	private static byte[] key(String secret) {
		return Base64.getDecoder().decode(secret.substring(PREFIX.length()));
	}

}
