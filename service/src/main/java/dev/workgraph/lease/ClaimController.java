package dev.workgraph.lease;

import dev.workgraph.access.Caller;
import dev.workgraph.problem.InvalidRequest;
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
		return this.leases.claim(claimant(request.workerId()), request.queues(), request.leaseSeconds())
			.map((claimed) -> ResponseEntity.status(HttpStatus.CREATED).body(claimed))
			.orElseGet(() -> ResponseEntity.noContent().build());
	}

	/**
	 * Who claims: a worker token claims as its own worker, so the body may leave
	 * {@code workerId} out, and naming another worker is 403 {@code forbidden}. Without
	 * access control the body must name the worker.
	 */
	static String claimant(String requested) {
		String worker = Caller.currentWorker().orElse(null);
		if (worker == null) {
			if (requested == null) {
				throw new InvalidRequest("workerId", "must not be null");
			}
			return requested;
		}
		Caller.requireActingAs((requested != null) ? requested : worker, "claim as worker " + requested);
		return worker;
	}

}
