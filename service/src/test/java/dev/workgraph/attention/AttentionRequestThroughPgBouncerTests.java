package dev.workgraph.attention;

import dev.workgraph.testing.ThroughPgBouncer;

/**
 * {@link AttentionRequestTests}, with the service behind a real PgBouncer in transaction
 * mode (docs/scaling.md): questions and answers behind the pooler.
 */
@ThroughPgBouncer
class AttentionRequestThroughPgBouncerTests extends AttentionRequestTests {

}
