package dev.workgraph.fence;

import java.time.Instant;
import java.util.Date;
import java.util.concurrent.locks.ReentrantLock;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.workgraph.view.LeaseSigner;
import dev.workgraph.view.LeaseView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * Signs fence tokens: {@code {iss, sub: itemId, lid: leaseId, epoch, wid: workerId, iat,
 * exp}} as a compact JWS (EdDSA over Ed25519), {@code kid} in the header. Everything in a
 * token comes from the lease as PostgreSQL stamped it ({@code iat} is when it was granted
 * or last renewed, {@code exp} its expiresAt), and Ed25519 signatures are deterministic:
 * the same lease state always gives the same token, on any instance.
 *
 * <p>
 * The key is cached and looked up again every {@code workgraph.fence.key-refresh}, so a
 * rotation reaches every instance within that interval; the signer is made once per key.
 */
@Component
class FenceTokens implements LeaseSigner {

	private static final Logger log = LoggerFactory.getLogger(FenceTokens.class);

	private final FenceKeys keys;

	private final String issuer;

	private final long refreshNanos;

	private volatile Signing signing;

	/** Held by the one thread that looks the signing key up. */
	private final ReentrantLock refreshing = new ReentrantLock();

	/** Enough for every lease in flight at a few thousand claims a second. */
	private final RecentTokens recent = new RecentTokens(8192);

	FenceTokens(FenceKeys keys, FenceProperties properties) {
		this.keys = keys;
		this.issuer = properties.issuer();
		this.refreshNanos = properties.keyRefresh().toNanos();
	}

	@Override
	public String fenceToken(LeaseView lease) {
		Signing current = signing();
		Instant issued = (lease.renewedAt() != null) ? lease.renewedAt() : lease.acquiredAt();
		RecentTokens.Signed signed = new RecentTokens.Signed(current.kid(), lease.id(), lease.itemId(), lease.epoch(),
				lease.workerId(), issued, lease.expiresAt());
		String token = this.recent.find(signed);
		if (token == null) {
			token = sign(current, signed);
			this.recent.remember(signed, token);
		}
		return token;
	}

	private String sign(Signing current, RecentTokens.Signed lease) {
		JWTClaimsSet claims = new JWTClaimsSet.Builder().issuer(this.issuer)
			.subject(lease.itemId().toString())
			.claim("lid", lease.leaseId().toString())
			.claim("epoch", lease.epoch())
			.claim("wid", lease.workerId())
			.issueTime(Date.from(lease.issuedAt()))
			.expirationTime(Date.from(lease.expiresAt()))
			.build();
		SignedJWT token = new SignedJWT(current.header(), claims);
		try {
			token.sign(current.signer());
		}
		catch (JOSEException ex) {
			throw new IllegalStateException("Cannot sign a fence token", ex);
		}
		return token.serialize();
	}

	/**
	 * The signing key in use, looked up again once the refresh interval has passed. The
	 * lookup is a query: while one thread makes it, the others sign with the key they
	 * have, and when it fails (PostgreSQL restarting) the key in use stays in use. Had
	 * they queued behind it, every answer with a lease would wait for one connection
	 * timeout after another while the database was away, and for a while after it was
	 * back (a minute's rotation delay is already what the interval allows).
	 */
	private Signing signing() {
		Signing current = this.signing;
		if (current == null) {
			return refresh();
		}
		if (System.nanoTime() - current.loadedAt() < this.refreshNanos || !this.refreshing.tryLock()) {
			return current;
		}
		try {
			return refreshLocked();
		}
		catch (DataAccessException ex) {
			log.debug("Signing with key {} a while longer: the lookup of the signing key failed ({})", current.kid(),
					ex.getMessage());
			return current;
		}
		finally {
			this.refreshing.unlock();
		}
	}

	/**
	 * Looks up the signing key now (a rotation's test need not wait for the interval).
	 */
	Signing refresh() {
		this.refreshing.lock();
		try {
			return refreshLocked();
		}
		finally {
			this.refreshing.unlock();
		}
	}

	private Signing refreshLocked() {
		OctetKeyPair key = this.keys.signing();
		Signing current = this.signing;
		if (current == null || !current.kid().equals(key.getKeyID())) {
			current = Signing.of(key);
		}
		this.signing = current.loadedNow();
		return this.signing;
	}

	record Signing(String kid, JWSHeader header, Ed25519JwsSigner signer, long loadedAt) {

		static Signing of(OctetKeyPair key) {
			return new Signing(key.getKeyID(),
					new JWSHeader.Builder(JWSAlgorithm.EdDSA).keyID(key.getKeyID()).type(JOSEObjectType.JWT).build(),
					new Ed25519JwsSigner(key), System.nanoTime());
		}

		Signing loadedNow() {
			return new Signing(this.kid, this.header, this.signer, System.nanoTime());
		}

	}

}
