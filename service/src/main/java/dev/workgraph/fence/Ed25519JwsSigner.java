package dev.workgraph.fence;

import java.util.Set;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.jca.JCAContext;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.util.Base64URL;
import org.bouncycastle.math.ec.rfc8032.Ed25519;

/**
 * Signs a JWS with EdDSA over Ed25519 through BouncyCastle's RFC 8032 implementation, in
 * half the CPU of Nimbus's own Ed25519 signer (Tink underneath): a fence token is signed
 * for every lease a claim grants, so the signature is a visible share of a claim's cost.
 * The public key is passed in, so a signature computes only what it must; the static
 * BouncyCastle method keeps no state, so one signer serves every thread.
 */
final class Ed25519JwsSigner implements JWSSigner {

	private final byte[] privateKey;

	private final byte[] publicKey;

	private final JCAContext jcaContext = new JCAContext();

	Ed25519JwsSigner(OctetKeyPair key) {
		if (!Curve.Ed25519.equals(key.getCurve()) || !key.isPrivate()) {
			throw new IllegalArgumentException("An Ed25519 private key is needed, not " + key.getCurve());
		}
		this.privateKey = key.getDecodedD();
		this.publicKey = key.getDecodedX();
	}

	@Override
	public Base64URL sign(JWSHeader header, byte[] signingInput) throws JOSEException {
		if (!JWSAlgorithm.EdDSA.equals(header.getAlgorithm())) {
			throw new JOSEException("Only EdDSA is signed here, not " + header.getAlgorithm());
		}
		byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
		Ed25519.sign(this.privateKey, 0, this.publicKey, 0, signingInput, 0, signingInput.length, signature, 0);
		return Base64URL.encode(signature);
	}

	@Override
	public Set<JWSAlgorithm> supportedJWSAlgorithms() {
		return Set.of(JWSAlgorithm.EdDSA);
	}

	@Override
	public JCAContext getJCAContext() {
		return this.jcaContext;
	}

}
