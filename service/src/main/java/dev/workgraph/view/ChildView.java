package dev.workgraph.view;

import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonRawValue;
import dev.workgraph.model.ItemStatus;

/**
 * A direct child, with its result once completed, so the parent's next claimant can use
 * it.
 */
public record ChildView(UUID id, String title, ItemStatus status, @JsonRawValue String result) {
}
