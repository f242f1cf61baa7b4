package dev.workgraph.lease.ending;

import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;

/**
 * Body of {@code POST /leases/{id}/cancel}: the lease's epoch and a reason.
 */
record EndLeaseRequest(@NotNull Long epoch, @Text(max = 2000) String reason) {
}
