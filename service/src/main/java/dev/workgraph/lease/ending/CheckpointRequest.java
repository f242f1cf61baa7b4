package dev.workgraph.lease.ending;

import dev.workgraph.validation.CompactJson;
import jakarta.validation.constraints.NotNull;
import tools.jackson.databind.JsonNode;

/**
 * Body of {@code POST /leases/{id}/checkpoints}: the lease's epoch, the progress to save
 * (a JSON object up to 1 MiB) and, optionally, a renewal of the lease in the same
 * transaction.
 */
record CheckpointRequest(@NotNull Long epoch, @CompactJson(maxBytes = Checkpoints.MAX_DATA_BYTES) JsonNode data,
		Long renewSeconds) {
}
