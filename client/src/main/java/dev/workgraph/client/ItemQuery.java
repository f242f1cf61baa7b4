package dev.workgraph.client;

import java.util.UUID;

/**
 * Which items to list; every filter is optional:
 * {@code ItemQuery.all().withStatus(ItemStatus.READY).withQueue("writing")}.
 *
 * @param status only items with this status
 * @param queue only items in this queue
 * @param parentId only children of this item
 * @param limit page size, 1–500 (the service's default, 50, when null)
 * @param cursor the {@code nextCursor} of the previous page
 */
public record ItemQuery(ItemStatus status, String queue, UUID parentId, Integer limit, String cursor) {

	public static ItemQuery all() {
		return new ItemQuery(null, null, null, null, null);
	}

	public ItemQuery withStatus(ItemStatus status) {
		return new ItemQuery(status, this.queue, this.parentId, this.limit, this.cursor);
	}

	public ItemQuery withQueue(String queue) {
		return new ItemQuery(this.status, queue, this.parentId, this.limit, this.cursor);
	}

	public ItemQuery withParent(UUID parentId) {
		return new ItemQuery(this.status, this.queue, parentId, this.limit, this.cursor);
	}

	public ItemQuery withLimit(Integer limit) {
		return new ItemQuery(this.status, this.queue, this.parentId, limit, this.cursor);
	}

	public ItemQuery withCursor(String cursor) {
		return new ItemQuery(this.status, this.queue, this.parentId, this.limit, cursor);
	}

	/** {@code GET /items} with this query's filters; those not set are left out. */
	Http.Call call() {
		return Http.Call.get("/items")
			.query("status", (this.status != null) ? this.status.wire() : null)
			.query("queue", this.queue)
			.query("parentId", this.parentId)
			.query("limit", this.limit)
			.query("cursor", this.cursor);
	}

}
