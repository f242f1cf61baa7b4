/**
 * The service's relation to its database at start-up: the embedded PostgreSQL it starts
 * for itself when no database is configured (so that it runs on a fresh machine with
 * nothing installed), a plain account of why it could not connect, and a warning when
 * autovacuum will not keep its tables' statistics.
 */
package dev.workgraph.database;
