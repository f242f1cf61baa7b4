package dev.workgraph.change;

import java.time.Instant;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;

/**
 * One published change (docs/changes.md): what the stream sends as an event's data.
 *
 * @param seq its place in the stream, strictly increasing, never reused
 * @param type what happened, e.g. {@code lease.ended}
 * @param itemId the item it happened to
 * @param leaseId the lease, for lease and attention changes
 * @param epoch that lease's epoch
 * @param queue the item's queue
 * @param at when the transaction that made the change began (PostgreSQL's clock)
 * @param data the type's own fields, a JSON object
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Change(long seq, String type, UUID itemId, UUID leaseId, Long epoch, String queue, Instant at,
		@JsonRawValue String data) {

}
