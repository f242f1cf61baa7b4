/**
 * The worker runtime: {@link dev.workgraph.client.worker.Worker} claims items
 * (long-polling), runs a handler per item, renews each lease by elapsed time, stops a
 * handler the moment its lease is gone, and stops cleanly.
 */
package dev.workgraph.client.worker;
