package dev.workgraph.lease.claim;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.access.Caller;
import dev.workgraph.lease.LeaseAndItem;
import dev.workgraph.lease.LeaseTraces;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.sql.LogContext;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.validation.Valid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class ClaimController {

	/** The reason recorded when a waiting claim's client was gone before its answer. */
	static final String CLIENT_GONE = "the waiting claim's client disconnected before it was answered";

	private static final Logger log = LoggerFactory.getLogger(ClaimController.class);

	private final ClaimCommands claims;

	private final UnansweredClaims unanswered;

	private final JsonMapper json;

	private final LeaseTraces traces;

	/**
	 * Said with every 204 (Retry-After, whole seconds): when an empty claim is worth
	 * repeating. Items become ready at any moment, so it is short; it keeps idle workers
	 * from spinning on empty claims without making them slow to notice new work.
	 */
	private final String emptyRetryAfter;

	ClaimController(ClaimCommands claims, UnansweredClaims unanswered, JsonMapper json, LeaseTraces traces,
			@Value("${workgraph.claims.empty-retry-after:1s}") Duration emptyRetryAfter) {
		this.claims = claims;
		this.traces = traces;
		this.unanswered = unanswered;
		this.json = json;
		this.emptyRetryAfter = Long.toString(Math.max(1, emptyRetryAfter.toSeconds()));
	}

	/**
	 * 201 with the lease and the full item, or 204 with Retry-After when nothing is ready
	 * (after waiting up to {@code waitSeconds}).
	 */
	@PostMapping("/claims")
	ResponseEntity<LeaseAndItem> claim(@Valid @RequestBody ClaimRequest request, HttpServletResponse response) {
		Optional<LeaseAndItem> claimed = this.claims.claim(claimant(request.workerId()), token(),
				Caller.claimableQueues(request.queues()), request.leaseSeconds(), request.waitOrZero());
		if (claimed.isEmpty()) {
			return ResponseEntity.noContent().header(HttpHeaders.RETRY_AFTER, this.emptyRetryAfter).build();
		}
		// Whatever is logged from here on while answering names the lease and item.
		LogContext.lease(claimed.get().lease().id());
		LogContext.item(claimed.get().item().id());
		this.traces.acting(claimed.get().lease());
		if (request.waitOrZero() == 0) {
			return ResponseEntity.status(HttpStatus.CREATED).body(claimed.get());
		}
		deliverOrRelease(claimed.get(), List.of(claimed.get()), response);
		return null; // answered
	}

	/**
	 * A claim that waited may find its client gone (a worker that stopped, a proxy that
	 * timed out): the item must not stay leased to nobody until the lease expires. The
	 * answer is written in two flushes, headers then body, because the first write to a
	 * connection the client has closed still succeeds (it only makes the client's side
	 * reset the connection); the second fails, and the lease is released at once, so the
	 * item is ready again for the next waiter.
	 */
	private void deliverOrRelease(Object answer, List<LeaseAndItem> claimed, HttpServletResponse response) {
		byte[] body = this.json.writeValueAsBytes(answer);
		try {
			response.setStatus(HttpStatus.CREATED.value());
			response.setContentType(MediaType.APPLICATION_JSON_VALUE);
			response.setContentLength(body.length);
			response.flushBuffer();
			response.getOutputStream().write(body);
			response.flushBuffer();
		}
		catch (IOException ex) {
			for (LeaseAndItem granted : claimed) {
				release(granted, ex);
			}
		}
	}

	private void release(LeaseAndItem granted, IOException cause) {
		log.debug("Releasing lease {}: its waiting client is gone ({})", granted.lease().id(), cause.getMessage());
		try {
			this.unanswered.release(granted.lease().id(), granted.lease().epoch(), CLIENT_GONE);
		}
		catch (RuntimeException failure) {
			// Already ended (expired, cancelled): the item is free or was meant to be.
			log.debug("Could not release lease {} of a gone client", granted.lease().id(), failure);
		}
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

	/**
	 * The token the request presented, when it can be revoked: a waiting claim ends when
	 * it is.
	 */
	private static UUID token() {
		return Caller.current().map(Caller::tokenId).orElse(null);
	}

	/**
	 * 201 with between 1 and {@code limit} claims in claim order, each its own lease, or
	 * 204 when nothing is ready.
	 */
	@PostMapping("/claims/batch")
	ResponseEntity<BatchClaimResponse> claimBatch(@Valid @RequestBody BatchClaimRequest request,
			HttpServletResponse response) {
		int wait = (request.waitSeconds() != null) ? request.waitSeconds() : 0;
		List<LeaseAndItem> claimed = this.claims.claimBatch(claimant(request.workerId()), token(),
				Caller.claimableQueues(request.queues()), request.leaseSeconds(), request.limit(), wait);
		if (claimed.isEmpty()) {
			return ResponseEntity.noContent().header(HttpHeaders.RETRY_AFTER, this.emptyRetryAfter).build();
		}
		claimed.forEach((granted) -> this.traces.granted(LeaseTraces.BATCH_GRANT, granted.lease()));
		if (wait == 0) {
			return ResponseEntity.status(HttpStatus.CREATED).body(new BatchClaimResponse(claimed));
		}
		deliverOrRelease(new BatchClaimResponse(claimed), claimed, response);
		return null; // answered
	}

	record BatchClaimResponse(List<LeaseAndItem> claims) {
	}

}
