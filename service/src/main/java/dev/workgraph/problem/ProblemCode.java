package dev.workgraph.problem;

import java.net.URI;

import org.springframework.http.HttpStatus;

/**
 * The stable, machine-readable {@code code} of every problem the API answers with
 * (docs/http-api.md, "Problems"), with its HTTP status and a fixed title. Clients branch
 * on the code, never on the detail text.
 */
public enum ProblemCode {

	MALFORMED_REQUEST(HttpStatus.BAD_REQUEST, "Malformed request"),
	VALIDATION_FAILED(HttpStatus.UNPROCESSABLE_CONTENT, "Validation failed"),
	UNAUTHENTICATED(HttpStatus.UNAUTHORIZED, "Unauthenticated"), FORBIDDEN(HttpStatus.FORBIDDEN, "Forbidden"),
	NOT_FOUND(HttpStatus.NOT_FOUND, "Not found"),
	METHOD_NOT_ALLOWED(HttpStatus.METHOD_NOT_ALLOWED, "Method not allowed"),
	NOT_ACCEPTABLE(HttpStatus.NOT_ACCEPTABLE, "Not acceptable"),
	DEPENDENCY_CYCLE(HttpStatus.UNPROCESSABLE_CONTENT, "Dependency cycle"),
	ITEM_TERMINAL(HttpStatus.CONFLICT, "Item is terminal"), ITEM_LEASED(HttpStatus.CONFLICT, "Item is leased"),
	OPEN_CHILDREN(HttpStatus.CONFLICT, "Item has open children"),
	UNMET_DEPENDENCIES(HttpStatus.CONFLICT, "Item has unmet dependencies"),
	LEASE_EXPIRED(HttpStatus.CONFLICT, "Lease expired"), LEASE_ENDED(HttpStatus.CONFLICT, "Lease ended"),
	EPOCH_MISMATCH(HttpStatus.CONFLICT, "Epoch mismatch"),
	ALREADY_RESOLVED(HttpStatus.CONFLICT, "Attention request already resolved"),
	IDEMPOTENCY_CONFLICT(HttpStatus.CONFLICT, "Idempotency key reused with a different request"),
	PAYLOAD_TOO_LARGE(HttpStatus.CONTENT_TOO_LARGE, "Payload too large"),
	UNSUPPORTED_MEDIA_TYPE(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type"),
	TOO_MANY_WAITING_CLAIMS(HttpStatus.TOO_MANY_REQUESTS, "Too many waiting claims"),
	TOO_MANY_STREAMS(HttpStatus.TOO_MANY_REQUESTS, "Too many worker streams"),
	SERVICE_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "Service unavailable"),
	INTERNAL_ERROR(HttpStatus.INTERNAL_SERVER_ERROR, "Internal error");

	private final HttpStatus status;

	private final String title;

	ProblemCode(HttpStatus status, String title) {
		this.status = status;
		this.title = title;
	}

	public HttpStatus status() {
		return this.status;
	}

	public String title() {
		return this.title;
	}

	/** The code as it appears on the wire, e.g. {@code lease_expired}. */
	public String code() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

	/** A stable problem type per code (documented in docs/problems.md). */
	public URI type() {
		return URI.create("urn:workgraph:problem:" + code());
	}

}
