package dev.workgraph.fence;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.Ed25519Verifier;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jwt.SignedJWT;
import dev.workgraph.view.LeaseView;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fence tokens (docs/fencing-outside.md): every lease view carries one, it verifies with
 * the published keys and says what the lease is; the fence endpoint answers whether a
 * lease may still write; keys are shared, created once under a race, and rotated.
 */
class FenceTokenTests extends LeaseTestSupport {

	@Autowired
	FenceTokens tokens;

	@Autowired
	FenceKeys keys;

	@AfterEach
	void signWithTheStoredKeyAgain() {
		this.tokens.refresh();
	}

	@Test
	void aClaimsTokenVerifiesWithThePublishedKeyAndNamesTheLease() throws Exception {
		UUID itemId = createItem("fenced");
		JsonNode claim = claim("worker-1", 120);
		JsonNode lease = claim.path("lease");
		SignedJWT token = verified(lease.path("fenceToken").asString());
		assertThat(token.getHeader().getAlgorithm()).isEqualTo(JWSAlgorithm.EdDSA);
		assertThat(token.getJWTClaimsSet().getIssuer()).isEqualTo("workgraph");
		assertThat(token.getJWTClaimsSet().getSubject()).isEqualTo(itemId.toString());
		assertThat(token.getJWTClaimsSet().getStringClaim("lid")).isEqualTo(lease.path("id").asString());
		assertThat(token.getJWTClaimsSet().getLongClaim("epoch")).isEqualTo(1L);
		assertThat(token.getJWTClaimsSet().getStringClaim("wid")).isEqualTo("worker-1");
		assertThat(token.getJWTClaimsSet().getIssueTime().toInstant().getEpochSecond())
			.isEqualTo(instant(lease.path("acquiredAt")).getEpochSecond());
		assertThat(token.getJWTClaimsSet().getExpirationTime().toInstant().getEpochSecond())
			.isEqualTo(instant(lease.path("expiresAt")).getEpochSecond());
		// The same lease read anywhere carries the same token: Ed25519 is deterministic.
		assertThat(lease(uuid(lease.path("id"))).path("fenceToken").asString())
			.isEqualTo(lease.path("fenceToken").asString());
		assertThat(claim.path("item").path("lease").path("fenceToken").asString())
			.isEqualTo(lease.path("fenceToken").asString());
	}

	@Test
	void aRenewalGivesATokenThatExpiresWithTheRenewedLease() throws Exception {
		createItem("renewed");
		JsonNode claim = claim("worker-1", 60);
		Api.Response renewed = renew(claim, 3600);
		assertOk(renewed);
		SignedJWT token = verified(renewed.body().path("fenceToken").asString());
		assertThat(token.getJWTClaimsSet().getExpirationTime().toInstant().getEpochSecond())
			.isEqualTo(instant(renewed.body().path("expiresAt")).getEpochSecond());
	}

	@Test
	void theNextHolderCarriesAHigherEpochAndEveryLeaseOfTheItemCarriesItsToken() throws Exception {
		UUID itemId = createItem("twice");
		assertOk(release(claim("worker-1", 60)));
		claim("worker-2", 60);
		List<JsonNode> leases = leasesOf(itemId);
		assertThat(leases).hasSize(2);
		List<Long> epochs = new ArrayList<>();
		for (JsonNode lease : leases) {
			epochs.add(verified(lease.path("fenceToken").asString()).getJWTClaimsSet().getLongClaim("epoch"));
		}
		assertThat(epochs).containsExactly(1L, 2L);
	}

	@Test
	void theFenceSaysWhetherAnEpochMayStillWrite() {
		createItem("fence");
		JsonNode first = claim("worker-1", 60);
		UUID firstLease = uuid(first.path("lease").path("id"));
		Api.Response live = this.api.get("/leases/" + firstLease + "/fence?epoch=1");
		assertOk(live);
		assertThat(live.body().path("live").asBoolean()).isTrue();
		assertThat(live.body().path("currentEpoch").asLong()).isEqualTo(1);
		assertThat(instant(live.body().path("expiresAt"))).isEqualTo(instant(first.path("lease").path("expiresAt")));
		assertThat(this.api.get("/leases/" + firstLease + "/fence").body().path("live").asBoolean()).isTrue();
		assertThat(this.api.get("/leases/" + firstLease + "/fence?epoch=2").body().path("live").asBoolean()).isFalse();
		assertOk(release(first));
		claim("worker-2", 60);
		Api.Response stale = this.api.get("/leases/" + firstLease + "/fence?epoch=1");
		assertOk(stale);
		assertThat(stale.body().path("live").asBoolean()).isFalse();
		assertThat(stale.body().path("currentEpoch").asLong()).isEqualTo(2);
		assertProblem(this.api.get("/leases/" + UUID.randomUUID() + "/fence"), 404, "not_found");
		assertProblem(this.api.get("/leases/not-a-lease/fence"), 404, "not_found");
		assertProblem(this.api.get("/leases/" + firstLease + "/fence?epoch=-1"), 422, "validation_failed");
		assertProblem(this.api.get("/leases/" + firstLease + "/fence?epoch=x"), 422, "validation_failed");
		assertProblem(this.api.get("/leases/" + firstLease + "/fence?worker=x"), 422, "validation_failed");
	}

	@Test
	void anExpiredLeaseIsNotLiveBeforeTheReaperRecordsIt() {
		createItem("expiring");
		JsonNode claim = claim("worker-1", 1);
		this.jdbc
			.sql("update leases set acquired_at = acquired_at - interval '1 hour', "
					+ "expires_at = now() - interval '1 second'")
			.update();
		Api.Response fence = this.api.get("/leases/" + claim.path("lease").path("id").asString() + "/fence");
		assertThat(fence.body().path("live").asBoolean()).isFalse();
		assertThat(fence.body().path("currentEpoch").asLong()).isEqualTo(1);
	}

	@Test
	void instancesStartingTogetherCreateOneSigningKey() throws Exception {
		this.jdbc.sql("delete from fence_keys").update();
		Set<String> kids = ConcurrentHashMap.newKeySet();
		Concurrently.run(8, (i) -> kids.add(this.keys.signing().getKeyID()));
		assertThat(kids).hasSize(1);
		assertThat(this.jdbc.sql("select count(*) from fence_keys").query(Long.class).single()).isEqualTo(1);
	}

	@Test
	void aRotatedKeySignsNewTokensWhileTheOldStillVerify() throws Exception {
		createItem("before");
		createItem("after");
		String before = claim("worker-1", 60).path("lease").path("fenceToken").asString();
		String oldKid = SignedJWT.parse(before).getHeader().getKeyID();
		// Rotation as docs/fencing-outside.md describes it: retire the signing key; each
		// instance makes or finds the next one at its next key refresh.
		this.jdbc.sql("update fence_keys set retired_at = now() where retired_at is null").update();
		this.tokens.refresh();
		String after = claim("worker-2", 60).path("lease").path("fenceToken").asString();
		assertThat(SignedJWT.parse(after).getHeader().getKeyID()).isNotEqualTo(oldKid);
		verified(before);
		verified(after);
		assertThat(publishedKeys().getKeys().getFirst().getKeyID())
			.isEqualTo(SignedJWT.parse(after).getHeader().getKeyID());
	}

	@Test
	void theKeySetHoldsPublicKeysOnly() {
		Api.Response jwks = this.api.get("/.well-known/jwks.json");
		assertOk(jwks);
		assertThat(jwks.header("Content-Type")).startsWith("application/jwk-set+json");
		for (JsonNode key : jwks.body().path("keys")) {
			assertThat(key.path("kty").asString()).isEqualTo("OKP");
			assertThat(key.path("crv").asString()).isEqualTo("Ed25519");
			assertThat(key.has("d")).isFalse();
		}
	}

	@Test
	void aLeaseStateWrittenAgainIsSignedOnceAndARenewalSignsAnew() {
		Instant now = Instant.now();
		LeaseView held = new LeaseView(UUID.randomUUID(), UUID.randomUUID(), "worker-1", 3, now, null,
				now.plusSeconds(60), true, null, null, null);
		String token = this.tokens.fenceToken(held);
		LeaseView ended = new LeaseView(held.id(), held.itemId(), "worker-1", 3, now, null, now.plusSeconds(60), false,
				now.plusSeconds(5), dev.workgraph.model.LeaseOutcome.COMPLETED, null);
		assertThat(this.tokens.fenceToken(ended)).as("remembered, not signed again").isSameAs(token);
		LeaseView renewed = new LeaseView(held.id(), held.itemId(), "worker-1", 3, now, now.plusSeconds(2),
				now.plusSeconds(62), true, null, null, null);
		assertThat(this.tokens.fenceToken(renewed)).isNotEqualTo(token);
	}

	@Test
	void theClaimAndTheCompletionAnswerTheSameTokenForTheSameLease() throws Exception {
		createItem("fenced twice");
		JsonNode claim = claim("worker-1", 120);
		JsonNode completed = complete(claim, null).body();
		assertThat(completed.path("lease").path("fenceToken").asString())
			.isEqualTo(claim.path("lease").path("fenceToken").asString());
	}

	/**
	 * One signature per lease view written. The figure is printed (on an idle two-core
	 * machine, tens to a few hundred microseconds; several times that while other builds
	 * run); the loose bound only catches gross mistakes, such as a signer made per call.
	 */
	@Test
	void signingATokenCostsTensOfMicroseconds() {
		Instant now = Instant.now();
		UUID itemId = UUID.randomUUID();
		for (int i = 0; i < 5_000; i++) {
			this.tokens.fenceToken(new LeaseView(UUID.randomUUID(), itemId, "warm-up", i + 1, now, null,
					now.plusSeconds(300), true, null, null, null));
		}
		int signed = 10_000;
		long started = System.nanoTime();
		for (int i = 0; i < signed; i++) {
			this.tokens.fenceToken(new LeaseView(UUID.randomUUID(), itemId, "worker-1", i + 1, now, null,
					now.plusSeconds(300), true, null, null, null));
		}
		double micros = (System.nanoTime() - started) / 1_000.0 / signed;
		System.out.printf("fence token: %.1f µs per signature (%d signed)%n", micros, signed);
		assertThat(micros).isLessThan(5_000);
	}

	private JWKSet publishedKeys() throws Exception {
		return JWKSet.parse(this.api.get("/.well-known/jwks.json").raw().body());
	}

	private SignedJWT verified(String compact) throws Exception {
		SignedJWT token = SignedJWT.parse(compact);
		OctetKeyPair key = (OctetKeyPair) publishedKeys().getKeyByKeyId(token.getHeader().getKeyID());
		assertThat(key).as("published key " + token.getHeader().getKeyID()).isNotNull();
		assertThat(token.verify(new Ed25519Verifier(key))).as("signature").isTrue();
		assertThat(token.getJWTClaimsSet().getExpirationTime().toInstant()).isAfter(Instant.EPOCH);
		return token;
	}

}
