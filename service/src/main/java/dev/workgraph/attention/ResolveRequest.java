package dev.workgraph.attention;

import dev.workgraph.input.Text;
import jakarta.validation.constraints.NotNull;

/** Body of {@code POST /attention-requests/{id}/resolve}. */
record ResolveRequest(@NotNull @Text(min = 1, max = 20_000) String resolution,
		@NotNull @Text(min = 1, max = 200) String resolvedBy) {
}
