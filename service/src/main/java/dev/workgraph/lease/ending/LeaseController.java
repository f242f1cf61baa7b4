package dev.workgraph.lease.ending;

import java.util.UUID;

import dev.workgraph.access.Caller;
import dev.workgraph.lease.LeaseAndItem;
import dev.workgraph.lease.LeaseHolders;
import dev.workgraph.lease.LeaseTraces;
import dev.workgraph.view.LeaseView;
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

	private final LeaseHolders holders;

	private final Handoffs handoffs;

	private final LeaseTraces traces;

	/** The writes the worker stream makes too, in one place. */
	private final LeaseCalls calls;

	LeaseController(LeaseCommands leases, Decomposition decomposition, LeaseHolders holders, Handoffs handoffs,
			LeaseTraces traces, LeaseCalls calls) {
		this.traces = traces;
		this.leases = leases;
		this.decomposition = decomposition;
		this.holders = holders;
		this.handoffs = handoffs;
		this.calls = calls;
	}

	@GetMapping
	LeaseView get(@PathVariable UUID leaseId) {
		LeaseView lease = this.leases.lease(leaseId);
		Caller.requireActingAs(lease.workerId(), "read lease " + leaseId + " of another worker");
		return lease;
	}

	@PostMapping("/renew")
	LeaseView renew(@PathVariable UUID leaseId, @Valid @RequestBody RenewRequest request) {
		return this.calls.renew(leaseId, request);
	}

	@PostMapping("/complete")
	LeaseCommands.Completed complete(@PathVariable UUID leaseId, @Valid @RequestBody CompleteRequest request) {
		return this.calls.complete(leaseId, request);
	}

	@PostMapping("/release")
	LeaseAndItem release(@PathVariable UUID leaseId, @Valid @RequestBody ReleaseRequest request) {
		return this.calls.release(leaseId, request);
	}

	@PostMapping("/cancel")
	LeaseAndItem cancel(@PathVariable UUID leaseId, @Valid @RequestBody EndLeaseRequest request) {
		return this.calls.cancel(leaseId, request);
	}

	@PostMapping("/decompose")
	ResponseEntity<Decomposition.Decomposed> decompose(@PathVariable UUID leaseId,
			@Valid @RequestBody DecomposeRequest request) {
		this.holders.requireCallerHolds(leaseId);
		return ResponseEntity.status(HttpStatus.CREATED)
			.body(this.decomposition.decompose(leaseId, request.epoch(), request.children(), request.reason()));
	}

	/**
	 * 201: the lease ended {@code handed_off} and the item leased to {@code toWorkerId}
	 * with the next epoch, in one transaction.
	 */
	@PostMapping("/handoff")
	ResponseEntity<Handoffs.HandedOff> handoff(@PathVariable UUID leaseId, @Valid @RequestBody HandoffRequest request) {
		this.holders.requireCallerHolds(leaseId);
		Handoffs.HandedOff handedOff = this.handoffs.handOff(leaseId, request.epoch(), request.toWorkerId(),
				request.reason(), request.leaseSeconds());
		this.traces.acting(handedOff.ended());
		this.traces.granted(LeaseTraces.HANDOFF_GRANT, handedOff.lease());
		return ResponseEntity.status(HttpStatus.CREATED).body(handedOff);
	}

	@PostMapping("/fail")
	LeaseAndItem fail(@PathVariable UUID leaseId, @Valid @RequestBody FailRequest request) {
		return this.calls.fail(leaseId, request);
	}

	@PostMapping("/checkpoints")
	ResponseEntity<Checkpoints.Written> checkpoint(@PathVariable UUID leaseId,
			@Valid @RequestBody CheckpointRequest request) {
		return ResponseEntity.status(HttpStatus.CREATED).body(this.calls.checkpoint(leaseId, request));
	}

}
