package dev.workgraph.lease;

import dev.workgraph.testing.ThroughPgBouncer;

/**
 * {@link LeaseConcurrencyTests}, with the service behind a real PgBouncer in transaction
 * mode (docs/scaling.md): racing lease writes stay fenced with fewer server connections
 * than the service's pool.
 */
@ThroughPgBouncer
class LeaseConcurrencyThroughPgBouncerTests extends LeaseConcurrencyTests {

}
