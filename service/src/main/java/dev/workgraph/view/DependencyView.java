package dev.workgraph.view;

import java.util.UUID;

import dev.workgraph.model.ItemStatus;

/**
 * An item this item depends on; a {@code cancelled} one keeps this item blocked until
 * removed.
 */
public record DependencyView(UUID id, String title, ItemStatus status) {
}
