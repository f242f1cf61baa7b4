/**
 * Identity and access (docs/adr/0007-access-tokens-and-roles.md): bearer tokens kept as
 * hashes in PostgreSQL, the three roles, the one table of who may call what
 * ({@link dev.workgraph.access.AccessRules}), token management, the bootstrap admin
 * token, and {@link dev.workgraph.access.Caller}, which features ask who is calling.
 * Depends on no other feature.
 */
package dev.workgraph.access;
