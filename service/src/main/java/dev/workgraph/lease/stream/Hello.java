package dev.workgraph.lease.stream;

import java.util.List;

import dev.workgraph.item.QueueNames;
import dev.workgraph.validation.Text;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * The body of a stream's first message, {@code hello}: what its pushed claims are, as the
 * fields of {@code POST /claims} say (a worker token may leave {@code workerId} out).
 */
record Hello(@Text(min = 1, max = 200) String workerId,
		@Size(min = 1, max = 100,
				message = "must list between 1 and 100 queues") List<@NotNull @Pattern(regexp = QueueNames.PATTERN,
						message = QueueNames.MESSAGE) String> queues,
		Long leaseSeconds) {
}
