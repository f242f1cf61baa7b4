package dev.workgraph.item;

import java.util.UUID;

/**
 * A validated item about to be inserted. {@code metadata} is compact JSON text;
 * {@code unmetDependencies} counts the dependencies that are not completed at insert
 * time.
 */
public record NewItem(UUID id, String title, String description, int priority, String queue, String metadata,
		UUID parentId, int unmetDependencies) {
}
