package dev.workgraph.lease.ending;

import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;

/**
 * Body of {@code POST /leases/{id}/handoff}: the lease's epoch, the worker who takes the
 * item over, a reason, and the successor's lease length (the default when left out).
 */
record HandoffRequest(@NotNull Long epoch, @NotNull @Text(min = 1, max = 200) String toWorkerId,
		@Text(max = 2000) String reason, Long leaseSeconds) {
}
