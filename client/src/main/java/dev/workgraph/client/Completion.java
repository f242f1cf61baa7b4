package dev.workgraph.client;

import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One entry of a batch completion: the lease, its epoch and the result.
 *
 * @param leaseId the lease to complete
 * @param epoch its epoch
 * @param result any JSON value (null for none)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Completion(UUID leaseId, long epoch, Object result) {

	public Completion {
		Objects.requireNonNull(leaseId, "leaseId");
	}

	public static Completion of(LeaseRef lease, Object result) {
		return new Completion(lease.id(), lease.epoch(), result);
	}

}
