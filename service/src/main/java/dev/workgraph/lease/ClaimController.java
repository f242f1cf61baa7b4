package dev.workgraph.lease;

import dev.workgraph.support.LogContext;
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
		return this.leases.claim(request.workerId(), request.queues(), request.leaseSeconds()).map((claimed) -> {
			// Whatever is logged from here on while answering names the lease and item.
			LogContext.lease(claimed.lease().id());
			LogContext.item(claimed.item().id());
			return ResponseEntity.status(HttpStatus.CREATED).body(claimed);
		}).orElseGet(() -> ResponseEntity.noContent().build());
	}

}
