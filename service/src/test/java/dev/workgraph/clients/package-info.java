/**
 * Clients in other languages than Java, run against the real service by their own tests.
 */
package dev.workgraph.clients;
