/**
 * Agents built on the Work Graph client, to run against a local service.
 */
package dev.workgraph.examples;
