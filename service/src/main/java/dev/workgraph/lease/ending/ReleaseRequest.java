package dev.workgraph.lease.ending;

import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;
import org.hibernate.validator.constraints.Range;

/**
 * Body of {@code POST /leases/{id}/release}: the lease's epoch, a reason, and how long
 * the item waits before it may be claimed again (0–30 days; none: ready at once).
 */
record ReleaseRequest(@NotNull Long epoch, @Text(max = 2000) String reason,
		@Range(min = 0, max = 2_592_000) Long retryAfterSeconds) {
}
