package dev.workgraph.lease.ending;

import dev.workgraph.validation.CompactJson;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import tools.jackson.databind.JsonNode;

/**
 * Body of {@code POST /leases/{id}/complete}: the lease's epoch, any JSON result up to 64
 * KiB, and, when the worker wants its next item in the same answer, {@code claimNext}.
 */
record CompleteRequest(@NotNull Long epoch, @CompactJson(objectOnly = false) JsonNode result,
		@Valid NextClaim claimNext) {
}
