/**
 * Work Graph: a graph of work items that agents claim under fenced, renewable leases.
 */
package dev.workgraph;
