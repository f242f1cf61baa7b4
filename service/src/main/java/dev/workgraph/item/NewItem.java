package dev.workgraph.item;

import dev.workgraph.model.RetryPolicy;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A validated item about to be created by {@link ItemCreation}.
 *
 * @param id its id, chosen by the caller (so that new items can depend on each other)
 * @param reference how the request names it, for problems: a decompose key, or
 * {@code (new item)}
 * @param metadata compact JSON text
 * @param dependsOn what it will wait for: other new items of the same creation, or
 * existing items
 * @param retry its retry policy as given (missing fields take the defaults), or null to
 * take its parent's (or the defaults)
 * @param notBefore when it may first be claimed, or null (a time that has come blocks
 * nothing)
 */
public record NewItem(UUID id, String reference, String title, String description, int priority, String queue,
		String metadata, List<UUID> dependsOn, RetryPolicy retry, Instant notBefore) {
}
