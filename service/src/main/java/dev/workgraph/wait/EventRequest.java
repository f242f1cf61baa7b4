package dev.workgraph.wait;

import dev.workgraph.validation.CompactJson;
import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;
import tools.jackson.databind.JsonNode;

/**
 * Body of {@code POST /events}: the event's name and key (what waits name), the sender's
 * own id for de-duplication, and a payload for the items it wakes.
 */
record EventRequest(@NotNull @Text(min = 1, max = 200) String name, @NotNull @Text(min = 1, max = 500) String key,
		@Text(min = 1, max = 200) String id, @CompactJson JsonNode payload) {
}
