package dev.workgraph.fence;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import com.nimbusds.jose.jwk.JWKSet;
import dev.workgraph.access.Caller;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

import org.springframework.http.CacheControl;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
class FenceController {

	/**
	 * How long verifiers may cache the key set: short, since a verifier that meets an
	 * unknown {@code kid} should fetch it again anyway.
	 */
	private static final CacheControl KEYS_CACHED = CacheControl.maxAge(java.time.Duration.ofMinutes(5)).cachePublic();

	private final FenceKeys keys;

	private final LeaseFences fences;

	FenceController(FenceKeys keys, LeaseFences fences) {
		this.keys = keys;
		this.fences = fences;
	}

	/**
	 * The public keys that verify fence tokens (RFC 7517 JWK set), open to anyone: the
	 * systems that check tokens hold no Work Graph token.
	 */
	@GetMapping(path = "/.well-known/jwks.json", produces = "application/jwk-set+json")
	ResponseEntity<Map<String, Object>> keys() {
		return ResponseEntity.ok().cacheControl(KEYS_CACHED).body(new JWKSet(this.keys.published()).toJSONObject(true));
	}

	/**
	 * Whether the lease is live and the presented epoch (the lease's own when omitted) is
	 * its epoch: for a downstream system that would rather ask than verify a token
	 * offline.
	 */
	@GetMapping("/leases/{leaseId}/fence")
	Fence fence(@PathVariable UUID leaseId, @RequestParam(required = false) Long epoch) {
		if (epoch != null && epoch < 0) {
			throw new InvalidRequest("epoch", "must be at least 0");
		}
		LeaseFences.LeaseFence fence = this.fences.find(leaseId)
			.orElseThrow(() -> new RequestRejected(ProblemCode.NOT_FOUND, "Lease " + leaseId + " does not exist")
				.with("leaseId", leaseId));
		Caller.requireActingAs(fence.workerId(), "read the fence of lease " + leaseId + " of another worker");
		return new Fence(fence.liveAt(epoch), fence.currentEpoch(), fence.expiresAt());
	}

	/** A lease's fence: whether it may still write, the item's epoch, its expiry. */
	record Fence(boolean live, long currentEpoch, Instant expiresAt) {
	}

}
