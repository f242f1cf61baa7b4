/**
 * What a worker does with the lease it holds: renew, complete (and claim next), release,
 * cancel, decompose; many at once ({@code POST /completions}) and group commit (ADR 0009)
 * with their statements ({@code BatchFencing}). Uses claiming for {@code claimNext}.
 */
package dev.workgraph.lease.ending;
