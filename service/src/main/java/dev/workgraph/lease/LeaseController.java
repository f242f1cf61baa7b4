package dev.workgraph.lease;

import java.util.UUID;

import dev.workgraph.model.LeaseView;
import jakarta.validation.Valid;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/leases/{leaseId}")
class LeaseController {

	private final LeaseCommands leases;

	private final Decomposition decomposition;

	LeaseController(LeaseCommands leases, Decomposition decomposition) {
		this.leases = leases;
		this.decomposition = decomposition;
	}

	@GetMapping
	LeaseView get(@PathVariable UUID leaseId) {
		return this.leases.lease(leaseId);
	}

	@PostMapping("/renew")
	LeaseView renew(@PathVariable UUID leaseId, @Valid @RequestBody RenewRequest request) {
		return this.leases.renew(leaseId, request.epoch(), request.leaseSeconds());
	}

	@PostMapping("/complete")
	LeaseCommands.LeaseAndItem complete(@PathVariable UUID leaseId, @Valid @RequestBody CompleteRequest request) {
		return this.leases.complete(leaseId, request.epoch(), request.result());
	}

	@PostMapping("/release")
	LeaseCommands.LeaseAndItem release(@PathVariable UUID leaseId, @Valid @RequestBody EndLeaseRequest request) {
		return this.leases.release(leaseId, request.epoch(), request.reason());
	}

	@PostMapping("/cancel")
	LeaseCommands.LeaseAndItem cancel(@PathVariable UUID leaseId, @Valid @RequestBody EndLeaseRequest request) {
		return this.leases.cancel(leaseId, request.epoch(), request.reason());
	}

	@PostMapping("/decompose")
	ResponseEntity<Decomposition.Decomposed> decompose(@PathVariable UUID leaseId,
			@Valid @RequestBody DecomposeRequest request) {
		return ResponseEntity.status(HttpStatus.CREATED)
			.body(this.decomposition.decompose(leaseId, request.epoch(), request.children(), request.reason()));
	}

}
