package dev.workgraph.fence;

import java.nio.charset.StandardCharsets;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSObject;
import com.nimbusds.jose.Payload;
import com.nimbusds.jose.crypto.Ed25519Signer;
import com.nimbusds.jose.crypto.Ed25519Verifier;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.jwk.gen.OctetKeyPairGenerator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The BouncyCastle signer against a second implementation, Nimbus's own signer over Tink:
 * Ed25519 is deterministic, so both must write the same bytes for the same key and input,
 * and each must verify the other's.
 */
class Ed25519JwsSignerTests {

	private static final JWSHeader HEADER = new JWSHeader.Builder(JWSAlgorithm.EdDSA).keyID("k").build();

	@Test
	void writesTheSameSignatureAsTinkForEveryInput() throws Exception {
		for (int round = 0; round < 20; round++) {
			OctetKeyPair key = new OctetKeyPairGenerator(Curve.Ed25519).keyID("k" + round).generate();
			byte[] input = ("header.payload-" + round + "-" + "x".repeat(round * 37))
				.getBytes(StandardCharsets.US_ASCII);
			assertThat(new Ed25519JwsSigner(key).sign(HEADER, input)).as("round %d", round)
				.isEqualTo(new Ed25519Signer(key).sign(HEADER, input));
		}
	}

	@Test
	void itsTokensVerifyWithTink() throws Exception {
		OctetKeyPair key = new OctetKeyPairGenerator(Curve.Ed25519).keyID("k").generate();
		JWSObject token = new JWSObject(HEADER, new Payload("{\"epoch\":7}"));
		token.sign(new Ed25519JwsSigner(key));
		JWSObject parsed = JWSObject.parse(token.serialize());
		assertThat(parsed.verify(new Ed25519Verifier(key.toPublicJWK()))).isTrue();
		OctetKeyPair other = new OctetKeyPairGenerator(Curve.Ed25519).keyID("k").generate();
		assertThat(JWSObject.parse(token.serialize()).verify(new Ed25519Verifier(other.toPublicJWK()))).isFalse();
	}

	@Test
	void refusesAPublicKeyAndOtherAlgorithms() throws Exception {
		OctetKeyPair key = new OctetKeyPairGenerator(Curve.Ed25519).keyID("k").generate();
		assertThatIllegalArgumentException().isThrownBy(() -> new Ed25519JwsSigner(key.toPublicJWK()));
		JWSHeader hmac = new JWSHeader.Builder(JWSAlgorithm.HS256).build();
		assertThatThrownBy(() -> new Ed25519JwsSigner(key).sign(hmac, new byte[] { 1 }))
			.hasMessageContaining("Only EdDSA");
	}

}
