package dev.workgraph.lease;

import java.util.List;

import jakarta.validation.Valid;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class ClaimController {

	private final LeaseCommands leases;

	ClaimController(LeaseCommands leases) {
		this.leases = leases;
	}

	/** 201 with the lease and the full item, or 204 when nothing is ready. */
	@PostMapping("/claims")
	ResponseEntity<LeaseCommands.LeaseAndItem> claim(@Valid @RequestBody ClaimRequest request) {
		return this.leases.claim(request.workerId(), request.queues(), request.leaseSeconds())
			.map((claimed) -> ResponseEntity.status(HttpStatus.CREATED).body(claimed))
			.orElseGet(() -> ResponseEntity.noContent().build());
	}

	/**
	 * 201 with between 1 and {@code limit} claims in claim order, each its own lease, or
	 * 204 when nothing is ready.
	 */
	@PostMapping("/claims/batch")
	ResponseEntity<BatchClaimResponse> claimBatch(@Valid @RequestBody BatchClaimRequest request) {
		List<LeaseCommands.LeaseAndItem> claimed = this.leases.claimBatch(request.workerId(), request.queues(),
				request.leaseSeconds(), request.limit());
		if (claimed.isEmpty()) {
			return ResponseEntity.noContent().build();
		}
		return ResponseEntity.status(HttpStatus.CREATED).body(new BatchClaimResponse(claimed));
	}

	record BatchClaimResponse(List<LeaseCommands.LeaseAndItem> claims) {
	}

}
