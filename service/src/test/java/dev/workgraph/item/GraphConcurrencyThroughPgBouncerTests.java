package dev.workgraph.item;

import dev.workgraph.testing.ThroughPgBouncer;

/**
 * {@link GraphConcurrencyTests}, with the service behind a real PgBouncer in transaction
 * mode (docs/scaling.md): graph changes serialize on a transaction-scoped advisory lock,
 * which a pooler cannot leak to another client.
 */
@ThroughPgBouncer
class GraphConcurrencyThroughPgBouncerTests extends GraphConcurrencyTests {

}
