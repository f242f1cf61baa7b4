package dev.workgraph.item;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * Body of {@code PATCH /items/{id}} (a JSON merge patch: a field left out is left as it
 * is). {@code notBefore}: the instant before which the item may not be claimed (RFC
 * 3339), or null to make it claimable at once.
 */
record PatchItemRequest(@Schema(type = "string", format = "date-time", nullable = true,
		description = "not claimable before this instant (RFC 3339); null clears it") String notBefore) {
}
