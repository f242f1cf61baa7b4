package dev.workgraph.openapi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.workgraph.problem.ProblemCode;

import static dev.workgraph.problem.ProblemCode.ALREADY_RESOLVED;
import static dev.workgraph.problem.ProblemCode.DEPENDENCY_CYCLE;
import static dev.workgraph.problem.ProblemCode.EPOCH_MISMATCH;
import static dev.workgraph.problem.ProblemCode.FORBIDDEN;
import static dev.workgraph.problem.ProblemCode.IDEMPOTENCY_CONFLICT;
import static dev.workgraph.problem.ProblemCode.INTERNAL_ERROR;
import static dev.workgraph.problem.ProblemCode.ITEM_TERMINAL;
import static dev.workgraph.problem.ProblemCode.LEASE_ENDED;
import static dev.workgraph.problem.ProblemCode.LEASE_EXPIRED;
import static dev.workgraph.problem.ProblemCode.MALFORMED_REQUEST;
import static dev.workgraph.problem.ProblemCode.NOT_ACCEPTABLE;
import static dev.workgraph.problem.ProblemCode.NOT_FOUND;
import static dev.workgraph.problem.ProblemCode.OPEN_CHILDREN;
import static dev.workgraph.problem.ProblemCode.PAYLOAD_TOO_LARGE;
import static dev.workgraph.problem.ProblemCode.SERVICE_UNAVAILABLE;
import static dev.workgraph.problem.ProblemCode.TOO_MANY_WAITING_CLAIMS;
import static dev.workgraph.problem.ProblemCode.UNAUTHENTICATED;
import static dev.workgraph.problem.ProblemCode.UNMET_DEPENDENCIES;
import static dev.workgraph.problem.ProblemCode.UNSUPPORTED_MEDIA_TYPE;
import static dev.workgraph.problem.ProblemCode.VALIDATION_FAILED;

/**
 * The one table of which problem codes each operation can answer (docs/http-api.md,
 * "Problems"). Only what is particular to an operation is listed by hand; the rest
 * follows from its shape:
 * <ul>
 * <li>every operation: {@code unauthenticated} 401 and {@code forbidden} 403 (when access
 * control is on), {@code not_acceptable} 406, {@code internal_error} 500,
 * {@code service_unavailable} 503;</li>
 * <li>with a path id: {@code not_found} 404 (a malformed id names nothing);</li>
 * <li>with a request body: {@code malformed_request} 400, {@code payload_too_large} 413,
 * {@code unsupported_media_type} 415, {@code validation_failed} 422;</li>
 * <li>with query parameters: {@code validation_failed} 422.</li>
 * </ul>
 * An operation missing from the table fails {@code ApiDocumentTests}, so a new endpoint
 * cannot be published without saying how it fails.
 */
final class OperationProblems {

	private static final List<ProblemCode> FENCED = List.of(LEASE_EXPIRED, LEASE_ENDED, EPOCH_MISMATCH);

	/** Keyed by {@code METHOD /path}, as the document names paths. */
	static final Map<String, List<ProblemCode>> PARTICULAR = table();

	private OperationProblems() {
	}

	private static Map<String, List<ProblemCode>> table() {
		Map<String, List<ProblemCode>> table = new LinkedHashMap<>();
		// Items
		table.put("POST /items", List.of(NOT_FOUND, DEPENDENCY_CYCLE, ITEM_TERMINAL, IDEMPOTENCY_CONFLICT));
		table.put("GET /items", List.of());
		table.put("GET /items/{id}", List.of());
		table.put("POST /items/{id}/dependencies", List.of(DEPENDENCY_CYCLE, ITEM_TERMINAL));
		table.put("DELETE /items/{id}/dependencies/{dependsOnId}", List.of(ITEM_TERMINAL));
		table.put("POST /items/{id}/cancel", List.of(ITEM_TERMINAL));
		table.put("GET /items/{id}/leases", List.of());
		table.put("GET /items/{id}/dependents", List.of());
		// The console's queue backlogs
		table.put("GET /queues", List.of());
		// Claims and leases
		// A token with as many long-poll claims waiting as it may.
		table.put("POST /claims", List.of(TOO_MANY_WAITING_CLAIMS));
		table.put("POST /claims/batch", List.of(TOO_MANY_WAITING_CLAIMS));
		// Each entry carries its own problem in the 200 answer; the request fails only as
		// a whole.
		table.put("POST /completions", List.of());
		table.put("GET /leases/{leaseId}", List.of());
		table.put("POST /leases/{leaseId}/renew", FENCED);
		table.put("POST /leases/{leaseId}/complete", with(FENCED, OPEN_CHILDREN, UNMET_DEPENDENCIES));
		table.put("POST /leases/{leaseId}/release", FENCED);
		table.put("POST /leases/{leaseId}/cancel", FENCED);
		table.put("POST /leases/{leaseId}/decompose", with(FENCED, DEPENDENCY_CYCLE));
		table.put("POST /leases/{leaseId}/attention-requests", FENCED);
		// Attention requests
		table.put("GET /attention-requests", List.of());
		table.put("GET /attention-requests/{id}", List.of());
		table.put("POST /attention-requests/{id}/resolve", List.of(ALREADY_RESOLVED));
		// Access tokens (admins)
		table.put("POST /tokens", List.of());
		table.put("GET /tokens", List.of());
		table.put("DELETE /tokens/{id}", List.of());
		return table;
	}

	private static List<ProblemCode> with(List<ProblemCode> codes, ProblemCode... more) {
		List<ProblemCode> all = new ArrayList<>(codes);
		all.addAll(List.of(more));
		return all;
	}

	/**
	 * Every problem the operation can answer, in status order; null when the table does
	 * not know the operation.
	 */
	static List<DocumentedProblem> of(String operation, boolean pathIds, boolean body, boolean query) {
		List<ProblemCode> particular = PARTICULAR.get(operation);
		if (particular == null) {
			return null;
		}
		List<ProblemCode> codes = new ArrayList<>(particular);
		// Access control (workgraph.security.enabled): no or a bad token, or a role
		// that may not do this.
		codes.add(UNAUTHENTICATED);
		codes.add(FORBIDDEN);
		codes.add(NOT_ACCEPTABLE);
		codes.add(INTERNAL_ERROR);
		codes.add(SERVICE_UNAVAILABLE);
		if (pathIds) {
			codes.add(NOT_FOUND);
		}
		if (body) {
			codes.addAll(List.of(MALFORMED_REQUEST, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, VALIDATION_FAILED));
		}
		if (query) {
			codes.add(VALIDATION_FAILED);
		}
		List<DocumentedProblem> problems = new ArrayList<>(
				codes.stream().distinct().map(DocumentedProblem::of).toList());
		problems
			.sort(java.util.Comparator.comparingInt(DocumentedProblem::status).thenComparing(DocumentedProblem::code));
		return problems;
	}

}
