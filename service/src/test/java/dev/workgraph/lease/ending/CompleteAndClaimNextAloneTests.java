package dev.workgraph.lease.ending;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link CompleteAndClaimNextTests} on a service that coalesces nothing: every completion
 * in its own transaction (its item's view from the completion statement itself) and every
 * claim its own statement, the paths a service with coalescing and group commit switched
 * off takes.
 */
@TestPropertySource(properties = { "workgraph.coalescing.enabled=false", "workgraph.coalescing.group-commit=false" })
class CompleteAndClaimNextAloneTests extends CompleteAndClaimNextTests {

}
