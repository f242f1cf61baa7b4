package dev.workgraph.client;

import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A child to create when decomposing an item:
 * {@code NewChild.of("backfill", "Backfill invoices").withDependsOn("schema")}. Children
 * inherit the parent's queue and priority unless given.
 *
 * @param key unique within the decomposition (1–100 characters); siblings refer to it
 * @param title what to do
 * @param description more about it
 * @param priority −1000…1000
 * @param queue the queue
 * @param metadata a JSON object
 * @param dependsOn sibling keys, or ids of existing items
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NewChild(String key, String title, String description, Integer priority, String queue, Object metadata,
		List<String> dependsOn) {

	public NewChild {
		Objects.requireNonNull(key, "key");
		Objects.requireNonNull(title, "title");
		dependsOn = (dependsOn != null) ? List.copyOf(dependsOn) : null;
	}

	public static NewChild of(String key, String title) {
		return new NewChild(key, title, null, null, null, null, null);
	}

	public NewChild withDescription(String description) {
		return new NewChild(this.key, this.title, description, this.priority, this.queue, this.metadata,
				this.dependsOn);
	}

	public NewChild withPriority(int priority) {
		return new NewChild(this.key, this.title, this.description, priority, this.queue, this.metadata,
				this.dependsOn);
	}

	public NewChild withQueue(String queue) {
		return new NewChild(this.key, this.title, this.description, this.priority, queue, this.metadata,
				this.dependsOn);
	}

	public NewChild withMetadata(Object metadata) {
		return new NewChild(this.key, this.title, this.description, this.priority, this.queue, metadata,
				this.dependsOn);
	}

	/** Sibling keys, or ids of existing items (as strings). */
	public NewChild withDependsOn(String... dependsOn) {
		return new NewChild(this.key, this.title, this.description, this.priority, this.queue, this.metadata,
				List.of(dependsOn));
	}

}
