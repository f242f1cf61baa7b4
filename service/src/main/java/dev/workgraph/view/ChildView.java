package dev.workgraph.view;

import java.util.UUID;

import dev.workgraph.model.ItemStatus;
import tools.jackson.databind.annotation.JsonSerialize;

/**
 * A direct child, with its result once completed, so the parent's next claimant can use
 * it.
 */
public record ChildView(UUID id, String title, ItemStatus status,
		@JsonSerialize(using = JsonbText.class) String result) {
}
