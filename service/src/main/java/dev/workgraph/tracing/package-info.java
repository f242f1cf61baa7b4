/**
 * Tracing (docs/operations.md, "Tracing"): the leases a request acts on named on its
 * span. A shared package: it depends on no feature, and does nothing when tracing is off.
 */
package dev.workgraph.tracing;
