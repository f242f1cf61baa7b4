/**
 * The consistency audit: recounts readiness from scratch and compares it with the
 * incremental state.
 */
package dev.workgraph.audit;
