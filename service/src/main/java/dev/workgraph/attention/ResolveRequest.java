package dev.workgraph.attention;

import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;

/**
 * Body of {@code POST /attention-requests/{id}/resolve}. {@code resolvedBy} defaults to
 * the token's name; without access control it is required.
 */
record ResolveRequest(@NotNull @Text(min = 1, max = 20_000) String resolution,
		@Text(min = 1, max = 200) String resolvedBy) {
}
