package dev.workgraph.attention;

import dev.workgraph.validation.CompactJson;
import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;
import tools.jackson.databind.JsonNode;

/**
 * Body of {@code POST /leases/{id}/attention-requests}; {@code blocking} defaults to
 * true.
 */
record RaiseRequest(@NotNull Long epoch, @NotNull @Text(min = 1, max = 20_000) String question, Boolean blocking,
		@CompactJson JsonNode context) {
}
