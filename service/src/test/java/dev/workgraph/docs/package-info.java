/**
 * Checks that the repository's documentation stands on its own: every Markdown link
 * resolves inside the repository, and no file points into design material users do not
 * have.
 */
package dev.workgraph.docs;
