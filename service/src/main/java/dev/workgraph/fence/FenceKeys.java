package dev.workgraph.fence;

import java.security.SecureRandom;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.util.Base64URL;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The fence tokens' keys: the configured one, or the one kept in {@code fence_keys} that
 * every instance shares (created by the first instance that needs it).
 */
@Repository
class FenceKeys {

	static final String SIGNING_KEY = """
			select private_jwk from fence_keys where retired_at is null
			""";

	/**
	 * A new signing key, unless one exists: of several instances racing here, the unique
	 * index on unretired keys lets one win, and the others read the winner's.
	 */
	static final String INSERT_SIGNING_KEY_IF_NONE = """
			insert into fence_keys (kid, private_jwk) values (:kid, :privateJwk)
			on conflict do nothing
			""";

	/** Every key that still verifies, the signing key first. */
	static final String PUBLISHED_KEYS = """
			select private_jwk from fence_keys order by retired_at desc nulls first, created_at desc
			""";

	private static final SecureRandom RANDOM = new SecureRandom();

	private final JdbcClient jdbc;

	private final OctetKeyPair configured;

	private final List<JWK> configuredPublished;

	FenceKeys(JdbcClient jdbc, FenceProperties properties) {
		this.jdbc = jdbc;
		this.configured = (properties.signingKey() != null && !properties.signingKey().isBlank())
				? signingKey(properties.signingKey(), "workgraph.fence.signing-key") : null;
		this.configuredPublished = new ArrayList<>();
		for (String key : properties.publishedKeys()) {
			this.configuredPublished.add(parse(key, "workgraph.fence.published-keys").toPublicJWK());
		}
	}

	/** The key to sign with now: the configured one, else the database's. */
	OctetKeyPair signing() {
		if (this.configured != null) {
			return this.configured;
		}
		Optional<OctetKeyPair> stored = stored();
		if (stored.isPresent()) {
			return stored.get();
		}
		OctetKeyPair fresh = generate();
		this.jdbc.sql(INSERT_SIGNING_KEY_IF_NONE)
			.param("kid", fresh.getKeyID())
			.param("privateJwk", fresh.toJSONString())
			.update();
		return stored().orElseThrow(() -> new IllegalStateException("No fence key could be stored"));
	}

	/** The public halves of every key a token may still be signed with. */
	List<JWK> published() {
		List<JWK> keys = new ArrayList<>();
		if (this.configured != null) {
			keys.add(this.configured.toPublicJWK());
		}
		else {
			for (String key : this.jdbc.sql(PUBLISHED_KEYS).query(String.class).list()) {
				keys.add(parse(key, "fence_keys").toPublicJWK());
			}
		}
		keys.addAll(this.configuredPublished);
		return keys;
	}

	private Optional<OctetKeyPair> stored() {
		return this.jdbc.sql(SIGNING_KEY).query(String.class).optional().map((key) -> signingKey(key, "fence_keys"));
	}

	private static OctetKeyPair generate() {
		byte[] privateKey = new byte[Ed25519.SECRET_KEY_SIZE];
		Ed25519.generatePrivateKey(RANDOM, privateKey);
		byte[] publicKey = new byte[Ed25519.PUBLIC_KEY_SIZE];
		Ed25519.generatePublicKey(privateKey, 0, publicKey, 0);
		return new OctetKeyPair.Builder(Curve.Ed25519, Base64URL.encode(publicKey)).d(Base64URL.encode(privateKey))
			.keyID("wg-" + UUID.randomUUID())
			.build();
	}

	private static OctetKeyPair signingKey(String json, String where) {
		JWK key = parse(json, where);
		if (!(key instanceof OctetKeyPair pair) || !Curve.Ed25519.equals(pair.getCurve()) || !pair.isPrivate()
				|| pair.getKeyID() == null) {
			throw new IllegalStateException(
					where + " must be an Ed25519 private key as a JWK (kty OKP, crv Ed25519, with d and kid)");
		}
		return pair;
	}

	private static JWK parse(String json, String where) {
		try {
			return JWK.parse(json);
		}
		catch (ParseException ex) {
			throw new IllegalStateException(where + " is not a JSON Web Key: " + ex.getMessage());
		}
	}

}
