package dev.workgraph.client;

import java.time.Instant;
import java.util.UUID;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Progress a holder saved under its lease ({@code POST /leases/{id}/checkpoints}). The
 * item view carries the latest one, so whoever holds the item next resumes from it.
 *
 * @param seq the item's checkpoints numbered 1, 2, 3 … across all its leases
 * @param itemId the item
 * @param leaseId the lease it was saved under
 * @param epoch that lease's epoch
 * @param workerId the worker that saved it
 * @param data what the worker saved (a JSON object)
 * @param createdAt when it was saved (the service's clock)
 */
public record Checkpoint(long seq, UUID itemId, UUID leaseId, long epoch, String workerId, JsonNode data,
		Instant createdAt) {

	public Checkpoint {
		data = (data != null && !data.isNull()) ? data : JsonNodeFactory.instance.objectNode();
	}

	/** The data converted to a type of the caller's (a record, a map). */
	public <T> T dataAs(Class<T> type) {
		return Json.MAPPER.treeToValue(this.data, type);
	}

}
