package dev.workgraph.webhook;

import java.time.Instant;

/**
 * One attempt to post one change, as {@code GET /webhooks/{id}/deliveries} shows it.
 *
 * @param messageId the {@code webhook-id} sent: the same for every attempt at the change
 * @param attempt 1 for the first attempt at this change, then 2, 3…
 * @param outcome {@code delivered} (a 2xx answer) or {@code failed}
 * @param status the target's HTTP status; null when it did not answer
 * @param error why it failed
 * @param millis how long the attempt took
 */
record DeliveryView(long seq, String messageId, int attempt, Instant at, String outcome, Integer status, String error,
		int millis) {
}
