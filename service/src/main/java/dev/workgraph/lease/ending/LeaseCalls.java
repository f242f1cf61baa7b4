package dev.workgraph.lease.ending;

import java.time.Duration;
import java.util.UUID;
import java.util.function.Supplier;

import dev.workgraph.access.Caller;
import dev.workgraph.lease.LeaseAndItem;
import dev.workgraph.lease.LeaseHolders;
import dev.workgraph.lease.LeaseTraces;
import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;
import dev.workgraph.view.LeaseView;
import dev.workgraph.web.RequestBodies;
import tools.jackson.databind.JsonNode;

import org.springframework.stereotype.Component;

/**
 * The writes a worker makes under its lease — renew, complete (with {@code claimNext}),
 * release, cancel, fail, checkpoint — each in one place for both ways they arrive: a
 * request to {@code /leases/{id}/…} ({@link LeaseController}) and a message on the worker
 * stream, which names the same operation and carries the same body. Both get the same
 * ownership check, the same commands (so the same fencing, group commit and problems) and
 * the same answers.
 */
@Component
public class LeaseCalls {

	private final LeaseCommands leases;

	private final LeaseHolders holders;

	private final Checkpoints checkpoints;

	private final Failures failures;

	private final RequestBodies bodies;

	private final LeaseTraces traces;

	LeaseCalls(LeaseCommands leases, LeaseHolders holders, Checkpoints checkpoints, Failures failures,
			RequestBodies bodies, LeaseTraces traces) {
		this.traces = traces;
		this.leases = leases;
		this.holders = holders;
		this.checkpoints = checkpoints;
		this.failures = failures;
		this.bodies = bodies;
	}

	/**
	 * The operation named as the worker stream names it ({@code renew}, {@code complete},
	 * {@code release}, {@code cancel}, {@code fail}, {@code checkpoint}), for the lease,
	 * with the body its HTTP request would carry: bound and validated as
	 * {@code @Valid @RequestBody} would, then done as that request would be. Answers what
	 * the request would answer, or throws its problem; an operation it does not know is
	 * 400 {@code malformed_request}.
	 */
	public Answer call(String operation, UUID leaseId, JsonNode body) {
		return switch (operation) {
			case "renew" -> Answer.ok(renew(leaseId, this.bodies.bind(body, RenewRequest.class)));
			case "complete" -> Answer.ok(complete(leaseId, this.bodies.bind(body, CompleteRequest.class)));
			case "release" -> Answer.ok(release(leaseId, this.bodies.bind(body, ReleaseRequest.class)));
			case "cancel" -> Answer.ok(cancel(leaseId, this.bodies.bind(body, EndLeaseRequest.class)));
			case "fail" -> Answer.ok(fail(leaseId, this.bodies.bind(body, FailRequest.class)));
			case "checkpoint" -> new Answer(201, checkpoint(leaseId, this.bodies.bind(body, CheckpointRequest.class)));
			default ->
				throw new RequestRejected(ProblemCode.MALFORMED_REQUEST, "Unknown operation '" + operation + "'");
		};
	}

	LeaseView renew(UUID leaseId, RenewRequest request) {
		this.holders.requireCallerHolds(leaseId);
		LeaseView renewed = this.leases.renew(leaseId, request.epoch(), request.leaseSeconds());
		this.traces.acting(renewed);
		return renewed;
	}

	LeaseCommands.Completed complete(UUID leaseId, CompleteRequest request) {
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

	LeaseAndItem release(UUID leaseId, ReleaseRequest request) {
		return traced(ending(leaseId, () -> this.leases.release(leaseId, request.epoch(), request.reason(),
				(request.retryAfterSeconds() != null) ? Duration.ofSeconds(request.retryAfterSeconds()) : null)));
	}

	LeaseAndItem cancel(UUID leaseId, EndLeaseRequest request) {
		return traced(ending(leaseId, () -> this.leases.cancel(leaseId, request.epoch(), request.reason())));
	}

	LeaseAndItem fail(UUID leaseId, FailRequest request) {
		return traced(ending(leaseId, () -> this.failures.fail(leaseId, request.epoch(), request)));
	}

	Checkpoints.Written checkpoint(UUID leaseId, CheckpointRequest request) {
		this.holders.requireCallerHolds(leaseId);
		return this.checkpoints.write(leaseId, request.epoch(), request);
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

	/**
	 * What the HTTP request would have answered: its success status and body.
	 *
	 * @param status 200, or 201 for a checkpoint
	 * @param body the answer, as the HTTP endpoint writes it
	 */
	public record Answer(int status, Object body) {

		static Answer ok(Object body) {
			return new Answer(200, body);
		}

	}

}
