/**
 * Small building blocks shared by every feature: ids, transactions, JSON text and input
 * hygiene.
 */
package dev.workgraph.support;
