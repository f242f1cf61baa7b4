package dev.workgraph.client;

import java.util.UUID;

import dev.workgraph.client.problem.Problem;
import dev.workgraph.client.problem.RequestRejected;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What happened to one entry of a batch completion, fenced on its own: status 200 with
 * the completed lease, or the status and problem a single complete would have answered.
 *
 * @param leaseId the lease of the entry
 * @param status 200, or the 4xx status
 * @param lease the completed lease, on success
 * @param problem the problem, on failure
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CompletionResult(UUID leaseId, int status, Lease lease, Problem problem) {

	@JsonIgnore
	public boolean isCompleted() {
		return this.status == 200;
	}

	/** The exception a single complete would have thrown; null on success. */
	public RequestRejected failure() {
		return (this.problem != null) ? RequestRejected.of(this.problem, null) : null;
	}

}
