/**
 * Fence tokens (ADR 0025, docs/fencing-outside.md): every lease view carries a JWS that
 * systems outside the service verify offline against the published keys, to refuse a
 * write from a holder whose epoch is lower than one they have seen.
 */
package dev.workgraph.fence;
