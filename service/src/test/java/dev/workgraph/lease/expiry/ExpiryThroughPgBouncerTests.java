package dev.workgraph.lease.expiry;

import dev.workgraph.testing.ThroughPgBouncer;

/**
 * {@link ExpiryTests}, with the service behind a real PgBouncer in transaction mode
 * (docs/scaling.md): expiry is PostgreSQL's clock, whichever server connection asks.
 */
@ThroughPgBouncer
class ExpiryThroughPgBouncerTests extends ExpiryTests {

}
