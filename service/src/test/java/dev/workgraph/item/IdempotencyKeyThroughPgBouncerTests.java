package dev.workgraph.item;

import dev.workgraph.testing.ThroughPgBouncer;

/**
 * {@link IdempotencyKeyTests}, with the service behind a real PgBouncer in transaction
 * mode (docs/scaling.md): concurrent creates with one key still yield one item.
 */
@ThroughPgBouncer
class IdempotencyKeyThroughPgBouncerTests extends IdempotencyKeyTests {

}
