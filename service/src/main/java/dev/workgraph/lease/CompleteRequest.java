package dev.workgraph.lease;

import dev.workgraph.input.CompactJson;
import jakarta.validation.constraints.NotNull;
import tools.jackson.databind.JsonNode;

/**
 * Body of {@code POST /leases/{id}/complete}: the lease's epoch and any JSON result up to
 * 64 KiB.
 */
record CompleteRequest(@NotNull Long epoch, @CompactJson(objectOnly = false) JsonNode result) {
}
