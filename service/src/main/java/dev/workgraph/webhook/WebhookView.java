package dev.workgraph.webhook;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A webhook as {@code GET /webhooks} shows it: never its secret.
 *
 * @param types the change types it is sent; empty for all
 * @param lastSeq the last seq handled (posted, or passed over as not wanted)
 * @param status {@code active}, {@code failing} (retrying the change after
 * {@code lastSeq}) or {@code disabled}
 * @param attempts failed attempts at the change after {@code lastSeq}
 * @param failingSince when the first of them failed
 * @param nextAttemptAt when the next attempt is due
 * @param lastError why the last attempt failed
 * @param disabledReason why it was disabled; it is sent nothing more
 */
record WebhookView(UUID id, String url, List<String> types, long lastSeq, Instant createdAt, String createdBy,
		String status, int attempts, Instant failingSince, Instant nextAttemptAt, String lastError, Instant disabledAt,
		String disabledReason) {

	static String status(boolean disabled, int attempts) {
		return disabled ? "disabled" : (attempts > 0) ? "failing" : "active";
	}

}
