package dev.workgraph.view;

import java.time.Instant;
import java.util.UUID;

import tools.jackson.databind.annotation.JsonSerialize;

/**
 * A durable wait: the item is parked until an event of {@code event}'s name and key
 * arrives ({@code matched}, the event in {@code matchedEvent}: {@code eventId}, the
 * sender's {@code id}, {@code name}, {@code key}, {@code payload}, {@code receivedAt}) or
 * {@code timeoutAt} passes ({@code timed_out}, then {@code onTimeout} applies); a wait of
 * an item cancelled meanwhile is {@code cancelled}. {@code leaseId}, {@code epoch} and
 * {@code workerId} name the lease that registered it.
 */
public record WaitView(UUID id, UUID itemId, UUID leaseId, long epoch, String workerId, WaitEvent event, String status,
		String onTimeout, Instant timeoutAt, @JsonSerialize(using = JsonbText.class) String matchedEvent,
		Instant createdAt, Instant resolvedAt) {

	/** The columns of the wait {@code t} as one JSON object, keyed as this view. */
	public static final String AS_JSON = """
			json_build_object('id', t.id, 'itemId', t.item_id, 'leaseId', t.lease_id, 'epoch', t.epoch,
			    'workerId', t.worker_id, 'event', json_build_object('name', t.event_name, 'key', t.event_key),
			    'status', t.status, 'onTimeout', t.on_timeout, 'timeoutAt', t.timeout_at,
			    'matchedEvent', t.matched_event::text, 'createdAt', t.created_at, 'resolvedAt', t.resolved_at)""";

	/** The event a wait is for: its name and key. */
	public record WaitEvent(String name, String key) {
	}

}
