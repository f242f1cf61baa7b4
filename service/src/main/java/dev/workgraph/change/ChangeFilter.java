package dev.workgraph.change;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.problem.FieldError;
import dev.workgraph.problem.InvalidRequest;

/**
 * Which changes a stream sends: of these types (all when empty), in this queue, of this
 * item (each null for any).
 */
record ChangeFilter(Set<String> types, String queue, UUID itemId) {

	static ChangeFilter of(String types, String queue, UUID itemId) {
		List<FieldError> errors = new ArrayList<>();
		Set<String> wanted = new LinkedHashSet<>();
		if (types != null) {
			for (String type : types.split(",", -1)) {
				String trimmed = type.strip();
				if (!ChangeTypes.ALL.contains(trimmed)) {
					errors.add(new FieldError("types",
							"has unknown type '" + trimmed + "'; known: " + String.join(", ", ChangeTypes.ALL)));
					break;
				}
				wanted.add(trimmed);
			}
		}
		if (queue != null && queue.isBlank()) {
			errors.add(new FieldError("queue", "must not be blank"));
		}
		if (!errors.isEmpty()) {
			throw new InvalidRequest(errors);
		}
		return new ChangeFilter(Set.copyOf(wanted), queue, itemId);
	}

	boolean matches(Change change) {
		return (this.types.isEmpty() || this.types.contains(change.type()))
				&& (this.queue == null || this.queue.equals(change.queue()))
				&& (this.itemId == null || this.itemId.equals(change.itemId()));
	}

}
