/**
 * Attention requests: questions for a human that pause an item, the operator's inbox,
 * resolution, and the crash-loop guard.
 */
package dev.workgraph.attention;
