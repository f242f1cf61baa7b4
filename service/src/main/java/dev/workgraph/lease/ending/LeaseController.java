package dev.workgraph.lease.ending;

import java.time.Duration;
import java.util.UUID;
import java.util.function.Supplier;

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

	private final Checkpoints checkpoints;

	private final Failures failures;

	private final Handoffs handoffs;

	private final LeaseTraces traces;

	LeaseController(LeaseCommands leases, Decomposition decomposition, LeaseHolders holders, Checkpoints checkpoints,
			Failures failures, Handoffs handoffs, LeaseTraces traces) {
		this.traces = traces;
		this.failures = failures;
		this.leases = leases;
		this.decomposition = decomposition;
		this.holders = holders;
		this.checkpoints = checkpoints;
		this.handoffs = handoffs;
	}

	@GetMapping
	LeaseView get(@PathVariable UUID leaseId) {
		LeaseView lease = this.leases.lease(leaseId);
		Caller.requireActingAs(lease.workerId(), "read lease " + leaseId + " of another worker");
		return lease;
	}

	@PostMapping("/renew")
	LeaseView renew(@PathVariable UUID leaseId, @Valid @RequestBody RenewRequest request) {
		this.holders.requireCallerHolds(leaseId);
		LeaseView renewed = this.leases.renew(leaseId, request.epoch(), request.leaseSeconds());
		this.traces.acting(renewed);
		return renewed;
	}

	@PostMapping("/complete")
	LeaseCommands.Completed complete(@PathVariable UUID leaseId, @Valid @RequestBody CompleteRequest request) {
		LeaseCommands.Completed completed = ending(leaseId, () -> (request.claimNext() == null)
				? LeaseCommands.Completed.alone(this.leases.complete(leaseId, request.epoch(), request.result()))
				: this.leases.completeAndClaim(leaseId, request.epoch(), request.result(), new NextClaim(
						Caller.claimableQueues(request.claimNext().queues()), request.claimNext().leaseSeconds())));
		this.traces.acting(completed.lease());
		if (completed.next() != null) {
			completed.next().ifPresent((next) -> this.traces.granted(LeaseTraces.NEXT_CLAIM, next.lease()));
		}
		return completed;
	}

	@PostMapping("/release")
	LeaseAndItem release(@PathVariable UUID leaseId, @Valid @RequestBody ReleaseRequest request) {
		return traced(ending(leaseId, () -> this.leases.release(leaseId, request.epoch(), request.reason(),
				(request.retryAfterSeconds() != null) ? Duration.ofSeconds(request.retryAfterSeconds()) : null)));
	}

	@PostMapping("/cancel")
	LeaseAndItem cancel(@PathVariable UUID leaseId, @Valid @RequestBody EndLeaseRequest request) {
		return traced(ending(leaseId, () -> this.leases.cancel(leaseId, request.epoch(), request.reason())));
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
		return traced(ending(leaseId, () -> this.failures.fail(leaseId, request.epoch(), request)));
	}

	@PostMapping("/checkpoints")
	ResponseEntity<Checkpoints.Written> checkpoint(@PathVariable UUID leaseId,
			@Valid @RequestBody CheckpointRequest request) {
		this.holders.requireCallerHolds(leaseId);
		return ResponseEntity.status(HttpStatus.CREATED)
			.body(this.checkpoints.write(leaseId, request.epoch(), request));
	}

	private LeaseAndItem traced(LeaseAndItem ended) {
		this.traces.acting(ended.lease());
		return ended;
	}

	/**
	 * Ends the caller's own lease: a worker acts only on the leases it holds (403 for
	 * another's), and an ended lease is forgotten by {@link LeaseHolders}.
	 */
	private <T> T ending(UUID leaseId, Supplier<T> end) {
		this.holders.requireCallerHolds(leaseId);
		T ended = end.get();
		this.holders.ended(leaseId);
		return ended;
	}

}
