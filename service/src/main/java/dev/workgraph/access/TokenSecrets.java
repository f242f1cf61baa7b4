package dev.workgraph.access;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Token secrets: 256 random bits, base64url with a recognisable {@code wg_} prefix (so
 * that secret scanners and people can tell one when they see it), kept only as SHA-256.
 */
final class TokenSecrets {

	static final String PREFIX = "wg_";

	private static final SecureRandom RANDOM = new SecureRandom();

	private TokenSecrets() {
	}

	static String newSecret() {
		byte[] bits = new byte[32];
		RANDOM.nextBytes(bits);
		return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
	}

	static byte[] hash(String secret) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is part of every Java runtime", ex);
		}
	}

}
