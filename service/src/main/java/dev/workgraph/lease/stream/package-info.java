/**
 * The worker stream (docs/adr/0031): one WebSocket per worker process at
 * {@code /worker-stream}, over which the service pushes leases as the worker's credits
 * allow and the worker sends its lease writes, done by the same commands as the HTTP
 * endpoints.
 */
package dev.workgraph.lease.stream;
