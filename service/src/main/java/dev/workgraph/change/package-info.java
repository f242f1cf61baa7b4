/**
 * The change stream (docs/changes.md): the outbox the database's triggers fill in each
 * change's own transaction, the one sequencer that numbers committed changes without ever
 * letting a reader pass a slower transaction, retention, and {@code GET /changes}
 * (server-sent events) fed from one tail per instance, which hears of new changes on the
 * instance's listening session (a {@link dev.workgraph.notification.ChannelSubscriber}).
 */
package dev.workgraph.change;
