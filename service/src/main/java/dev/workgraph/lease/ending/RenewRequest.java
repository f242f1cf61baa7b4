package dev.workgraph.lease.ending;

import jakarta.validation.constraints.NotNull;

/**
 * Body of {@code POST /leases/{id}/renew}: the lease's epoch and, optionally, a new
 * length.
 */
record RenewRequest(@NotNull Long epoch, Long leaseSeconds) {
}
