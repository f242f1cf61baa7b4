package dev.workgraph.lease;

import java.util.List;

import dev.workgraph.item.QueueNames;
import dev.workgraph.input.Text;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * Body of {@code POST /claims}. {@code queues}, when given, is a non-empty list of queue
 * names; {@code leaseSeconds} is checked against {@code workgraph.lease.max-seconds}.
 */
record ClaimRequest(@NotNull @Text(min = 1, max = 200) String workerId,
		@Size(min = 1, max = 100,
				message = "must list between 1 and 100 queues") List<@NotNull @Pattern(regexp = QueueNames.PATTERN,
						message = QueueNames.MESSAGE) String> queues,
		Long leaseSeconds) {
}
