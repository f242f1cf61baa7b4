/**
 * The Java worker client and the example agent against the real service.
 */
package dev.workgraph.client.integration;
