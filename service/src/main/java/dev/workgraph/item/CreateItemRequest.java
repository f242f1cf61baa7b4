package dev.workgraph.item;

import dev.workgraph.model.RetryPolicy;
import java.util.List;
import java.util.UUID;

import dev.workgraph.validation.CompactJson;
import io.swagger.v3.oas.annotations.media.Schema;
import dev.workgraph.validation.Text;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import org.hibernate.validator.constraints.Range;
import tools.jackson.databind.JsonNode;

/** Body of {@code POST /items}. */
record CreateItemRequest(@NotNull @Text(min = 1, max = 500) String title, @Text(max = 100_000) String description,
		@Range(min = -1000, max = 1000) Integer priority,
		@Pattern(regexp = QueueNames.PATTERN, message = QueueNames.MESSAGE) String queue,
		@CompactJson JsonNode metadata, UUID parentId,
		@Size(max = 1000, message = "must list at most 1000 items") List<@NotNull UUID> dependsOn,
		@Valid RetryPolicy retry, @Schema(type = "string", format = "date-time",
				description = "not claimable before this instant (RFC 3339)") String notBefore) {
}
