package dev.workgraph.client;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A request to create an item:
 * {@code NewItem.titled("Build").withQueue("ci").withPriority(5)}. Absent fields take the
 * service's defaults (priority 0, queue {@code default}, no metadata).
 *
 * @param title what to do (1–500 characters)
 * @param description more about it (up to 100,000 characters)
 * @param priority −1000…1000, higher is claimed first
 * @param queue {@code [a-z0-9._-]}, 1–100 characters
 * @param metadata a JSON object: a {@code Map}, a record, or a Jackson {@code ObjectNode}
 * @param parentId the (non-terminal) item to add it under
 * @param dependsOn items it waits for
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NewItem(String title, String description, Integer priority, String queue, Object metadata, UUID parentId,
		List<UUID> dependsOn) {

	public NewItem {
		Objects.requireNonNull(title, "title");
		dependsOn = (dependsOn != null) ? List.copyOf(dependsOn) : null;
	}

	public static NewItem titled(String title) {
		return new NewItem(title, null, null, null, null, null, null);
	}

	public NewItem withDescription(String description) {
		return new NewItem(this.title, description, this.priority, this.queue, this.metadata, this.parentId,
				this.dependsOn);
	}

	public NewItem withPriority(int priority) {
		return new NewItem(this.title, this.description, priority, this.queue, this.metadata, this.parentId,
				this.dependsOn);
	}

	public NewItem withQueue(String queue) {
		return new NewItem(this.title, this.description, this.priority, queue, this.metadata, this.parentId,
				this.dependsOn);
	}

	public NewItem withMetadata(Object metadata) {
		return new NewItem(this.title, this.description, this.priority, this.queue, metadata, this.parentId,
				this.dependsOn);
	}

	public NewItem withParent(UUID parentId) {
		return new NewItem(this.title, this.description, this.priority, this.queue, this.metadata, parentId,
				this.dependsOn);
	}

	public NewItem withDependsOn(UUID... dependsOn) {
		return new NewItem(this.title, this.description, this.priority, this.queue, this.metadata, this.parentId,
				List.of(dependsOn));
	}

}
