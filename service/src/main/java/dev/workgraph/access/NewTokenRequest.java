package dev.workgraph.access;

import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;

/**
 * Body of {@code POST /tokens}: {@code workerId} is required for a worker token and
 * refused for the others.
 */
record NewTokenRequest(@NotNull @Text(min = 1, max = 200) String name, @NotNull String role,
		@Text(min = 1, max = 200) String workerId) {
}
