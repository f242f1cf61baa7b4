/**
 * The service's own relation to its database at start-up: a plain account of why it could
 * not connect.
 */
package dev.workgraph.database;
