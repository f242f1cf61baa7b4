package dev.workgraph.access;

import java.util.List;

import dev.workgraph.item.QueueNames;
import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * Body of {@code POST /tokens}: {@code workerId} is required for a worker token and
 * refused for the others; {@code queues}, only for a worker token, limits its claims (and
 * the items it creates) to those queues; {@code createItems}, only for a worker token,
 * lets it create items too; {@code eventNames}, only for an events token, limits the
 * events it may send to those names.
 */
record NewTokenRequest(@NotNull @Text(min = 1, max = 200) String name, @NotNull String role,
		@Text(min = 1, max = 200) String workerId,
		@Size(min = 1, max = 100,
				message = "must list between 1 and 100 queues") List<@NotNull @Pattern(regexp = QueueNames.PATTERN,
						message = QueueNames.MESSAGE) String> queues,
		Boolean createItems,
		@Size(min = 1, max = 100, message = "must list between 1 and 100 event names") List<@NotNull @Text(min = 1,
				max = 200) String> eventNames) {
}
