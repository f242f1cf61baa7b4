/**
 * The embedded PostgreSQL that the service starts for itself when no database is
 * configured, so that it runs on a fresh machine with nothing installed.
 */
package dev.workgraph.database;
