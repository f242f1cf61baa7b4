package dev.workgraph.lease.ending;

import dev.workgraph.validation.CompactJson;
import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;
import tools.jackson.databind.JsonNode;

/**
 * Body of {@code POST /leases/{id}/fail}: the lease's epoch, the error (a JSON object up
 * to 64 KiB, required), whether another attempt may succeed (default true) and an
 * optional reason.
 */
record FailRequest(@NotNull Long epoch, @CompactJson JsonNode error, Boolean retryable,
		@Text(max = 2000) String reason) {
}
