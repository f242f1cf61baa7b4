package dev.workgraph.view;

import java.time.Instant;
import java.util.UUID;

import tools.jackson.databind.annotation.JsonSerialize;

/**
 * What a lease holder saved of its progress: {@code seq} numbers an item's checkpoints 1,
 * 2, … in the order written; {@code leaseId}, {@code epoch} and {@code workerId} name the
 * lease that wrote it, which was the item's current lease when it did.
 */
public record CheckpointView(long seq, UUID itemId, UUID leaseId, long epoch, String workerId,
		@JsonSerialize(using = JsonbText.class) String data, Instant createdAt) {

	/** The columns of the checkpoint {@code k} as one JSON object, keyed as this view. */
	public static final String AS_JSON = """
			json_build_object('seq', k.seq, 'itemId', k.item_id, 'leaseId', k.lease_id, 'epoch', k.epoch,
			    'workerId', k.worker_id, 'data', k.data::text, 'createdAt', k.created_at)""";

}
