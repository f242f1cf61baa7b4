package dev.workgraph.item;

import dev.workgraph.testing.ThroughPgBouncer;

/**
 * {@link LongPollClaimTests} with the first instance's pool behind a real PgBouncer in
 * transaction mode and its listener on a direct connection
 * ({@code workgraph.notifications.url}, docs/scaling.md), the periodic recheck out of
 * reach: waiting claims are woken by notifications that the pooled transactions send and
 * the direct listener hears, a killed listener reconnects, a thousand waiters hold no
 * pooled connection.
 */
@ThroughPgBouncer
class LongPollClaimThroughPgBouncerTests extends LongPollClaimTests {

}
