package dev.workgraph.lease;

import java.time.Duration;

import jakarta.validation.Valid;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class ClaimController {

	private final LeaseCommands leases;

	/**
	 * Said with every 204 (Retry-After, whole seconds): when an empty claim is worth
	 * repeating. Items become ready at any moment, so it is short; it keeps idle workers
	 * from spinning on empty claims without making them slow to notice new work.
	 */
	private final String emptyRetryAfter;

	ClaimController(LeaseCommands leases, @Value("${workgraph.claims.empty-retry-after:1s}") Duration emptyRetryAfter) {
		this.leases = leases;
		this.emptyRetryAfter = Long.toString(Math.max(1, emptyRetryAfter.toSeconds()));
	}

	/**
	 * 201 with the lease and the full item, or 204 when nothing is ready, with
	 * Retry-After.
	 */
	@PostMapping("/claims")
	ResponseEntity<LeaseCommands.LeaseAndItem> claim(@Valid @RequestBody ClaimRequest request) {
		return this.leases.claim(request.workerId(), request.queues(), request.leaseSeconds())
			.map((claimed) -> ResponseEntity.status(HttpStatus.CREATED).body(claimed))
			.orElseGet(() -> ResponseEntity.noContent().header(HttpHeaders.RETRY_AFTER, this.emptyRetryAfter).build());
	}

}
