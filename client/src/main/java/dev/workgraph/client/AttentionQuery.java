package dev.workgraph.client;

import java.util.Locale;
import java.util.UUID;

/**
 * Which attention requests to list (newest first); every filter is optional.
 *
 * @param status only open, or only resolved, requests
 * @param itemId only requests about this item
 * @param limit page size, 1–500
 * @param cursor the {@code nextCursor} of the previous page
 */
public record AttentionQuery(AttentionRequest.Status status, UUID itemId, Integer limit, String cursor) {

	public static AttentionQuery all() {
		return new AttentionQuery(null, null, null, null);
	}

	public static AttentionQuery open() {
		return all().withStatus(AttentionRequest.Status.OPEN);
	}

	public AttentionQuery withStatus(AttentionRequest.Status status) {
		return new AttentionQuery(status, this.itemId, this.limit, this.cursor);
	}

	public AttentionQuery withItem(UUID itemId) {
		return new AttentionQuery(this.status, itemId, this.limit, this.cursor);
	}

	public AttentionQuery withLimit(Integer limit) {
		return new AttentionQuery(this.status, this.itemId, limit, this.cursor);
	}

	public AttentionQuery withCursor(String cursor) {
		return new AttentionQuery(this.status, this.itemId, this.limit, cursor);
	}

	/**
	 * {@code GET /attention-requests} with this query's filters; those not set are left
	 * out.
	 */
	Http.Call call() {
		return Http.Call.get("/attention-requests")
			.query("status", (this.status != null) ? this.status.name().toLowerCase(Locale.ROOT) : null)
			.query("itemId", this.itemId)
			.query("limit", this.limit)
			.query("cursor", this.cursor);
	}

}
