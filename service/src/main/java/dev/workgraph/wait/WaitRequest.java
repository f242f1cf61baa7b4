package dev.workgraph.wait;

import dev.workgraph.validation.Text;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

/**
 * Body of {@code POST /leases/{id}/waits}: the lease's epoch, the event to wait for, an
 * optional deadline in seconds and what happens at it ({@code ready}, the default;
 * {@code cancel}; {@code ask}).
 */
record WaitRequest(@NotNull Long epoch, @NotNull @Valid EventName event, Long timeoutSeconds, String onTimeout) {

	/** The event a wait is for. */
	record EventName(@NotNull @Text(min = 1, max = 200) String name, @NotNull @Text(min = 1, max = 500) String key) {
	}

}
