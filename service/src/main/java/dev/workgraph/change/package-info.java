/**
 * The change stream (docs/changes.md): the outbox the database's triggers fill in each
 * change's own transaction, the one sequencer that numbers committed changes without ever
 * letting a reader pass a slower transaction, retention, and {@code GET /changes}
 * (server-sent events) fed from one tail per instance. Other features only call
 * {@link dev.workgraph.change.ChangeFeed#sequenced()} when the listening session hears of
 * new changes.
 */
package dev.workgraph.change;
