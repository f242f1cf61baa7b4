/**
 * Waiting on the world: durable waits that park an item on an event named by (name, key),
 * the events that match them ({@code POST /events}), and the timer pass that ends waits
 * at their deadline and forgets events past their retention.
 */
package dev.workgraph.wait;
