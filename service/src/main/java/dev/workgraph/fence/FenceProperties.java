package dev.workgraph.fence;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How fence tokens are signed ({@code workgraph.fence.*}).
 *
 * @param issuer the tokens' {@code iss}
 * @param signingKey an Ed25519 private key as a JSON Web Key ({@code kty} OKP,
 * {@code crv} Ed25519, with {@code d} and a {@code kid}); when set, it signs instead of
 * the key kept in the database
 * @param publishedKeys further public keys (JWK JSON) to publish beside the signing key:
 * the previous configured key while tokens it signed are still about
 * @param keyRefresh how often an instance looks for a new signing key in the database
 * (after a rotation)
 */
@ConfigurationProperties("workgraph.fence")
record FenceProperties(@DefaultValue("workgraph") String issuer, String signingKey,
		@DefaultValue List<String> publishedKeys, @DefaultValue("1m") Duration keyRefresh) {
}
