package dev.workgraph.client.problem;

import java.time.Duration;
import java.util.Optional;

/**
 * The service answered with a problem (any status from 400 on). Each problem {@code code}
 * of the API has a subclass of its own, so callers catch what they can handle; a code
 * this client does not know yet arrives as a plain {@code RequestRejected}. Branch on the
 * type or on {@link #code()}, never on the detail text.
 */
public class RequestRejected extends WorkGraphException {

	private static final long serialVersionUID = 1L;

	private final transient Problem problem;

	private final Duration retryAfter;

	public RequestRejected(Problem problem, Duration retryAfter) {
		super(describe(problem), null);
		this.problem = problem;
		this.retryAfter = retryAfter;
	}

	/**
	 * The exception for a problem: the subclass for its code, or for its status when the
	 * answer carried no code (a proxy's 502, say), or a plain {@code RequestRejected}.
	 * @param retryAfter the answer's {@code Retry-After}, or null
	 */
	public static RequestRejected of(Problem problem, Duration retryAfter) {
		String code = (problem.code() != null) ? problem.code() : "";
		return switch (code) {
			case "malformed_request" -> new MalformedRequest(problem, retryAfter);
			case "validation_failed" -> new ValidationFailed(problem, retryAfter);
			case "not_found" -> new NotFound(problem, retryAfter);
			case "dependency_cycle" -> new DependencyCycle(problem, retryAfter);
			case "item_terminal" -> new ItemTerminal(problem, retryAfter);
			case "open_children" -> new OpenChildren(problem, retryAfter);
			case "unmet_dependencies" -> new UnmetDependencies(problem, retryAfter);
			case "lease_expired" -> new LeaseExpired(problem, retryAfter);
			case "lease_ended" -> new LeaseEnded(problem, retryAfter);
			case "epoch_mismatch" -> new EpochMismatch(problem, retryAfter);
			case "already_resolved" -> new AlreadyResolved(problem, retryAfter);
			case "idempotency_conflict" -> new IdempotencyConflict(problem, retryAfter);
			case "payload_too_large" -> new PayloadTooLarge(problem, retryAfter);
			case "unsupported_media_type" -> new UnsupportedMediaType(problem, retryAfter);
			case "method_not_allowed" -> new MethodNotAllowed(problem, retryAfter);
			case "not_acceptable" -> new NotAcceptable(problem, retryAfter);
			case "unauthenticated" -> new Unauthenticated(problem, retryAfter);
			case "forbidden" -> new Forbidden(problem, retryAfter);
			case "rate_limited" -> new RateLimited(problem, retryAfter);
			case "service_unavailable" -> new ServiceUnavailable(problem, retryAfter);
			case "internal_error" -> new InternalServerError(problem, retryAfter);
			default -> byStatus(problem, retryAfter);
		};
	}

	private static RequestRejected byStatus(Problem problem, Duration retryAfter) {
		if (problem.code() != null) {
			return new RequestRejected(problem, retryAfter);
		}
		return switch (problem.status()) {
			case 401 -> new Unauthenticated(problem, retryAfter);
			case 403 -> new Forbidden(problem, retryAfter);
			case 404 -> new NotFound(problem, retryAfter);
			case 413 -> new PayloadTooLarge(problem, retryAfter);
			case 429 -> new RateLimited(problem, retryAfter);
			case 500 -> new InternalServerError(problem, retryAfter);
			case 502, 503, 504 -> new ServiceUnavailable(problem, retryAfter);
			default -> new RequestRejected(problem, retryAfter);
		};
	}

	/** The problem as the service sent it. */
	public Problem problem() {
		return this.problem;
	}

	/** The stable code, e.g. {@code lease_expired}; null if the answer carried none. */
	public String code() {
		return this.problem.code();
	}

	/** The HTTP status. */
	public int status() {
		return this.problem.status();
	}

	/** How long the service asked the caller to wait before trying again. */
	public Optional<Duration> retryAfter() {
		return Optional.ofNullable(this.retryAfter);
	}

	private static String describe(Problem problem) {
		StringBuilder message = new StringBuilder().append(problem.status());
		if (problem.code() != null) {
			message.append(' ').append(problem.code());
		}
		if (problem.detail() != null) {
			message.append(": ").append(problem.detail());
		}
		else if (problem.title() != null) {
			message.append(": ").append(problem.title());
		}
		return message.toString();
	}

}
