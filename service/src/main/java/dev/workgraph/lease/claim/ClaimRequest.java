package dev.workgraph.lease.claim;

import java.util.List;

import dev.workgraph.item.QueueNames;
import dev.workgraph.validation.Text;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;

/**
 * Body of {@code POST /claims}. {@code queues}, when given, is a non-empty list of queue
 * names; {@code leaseSeconds} is checked against {@code workgraph.lease.max-seconds};
 * {@code waitSeconds} (default 0) is how long the claim may wait for an item to become
 * ready (docs/adr/0008). {@code workerId} may be left out with a worker token, which
 * names the worker.
 */
record ClaimRequest(@Text(min = 1, max = 200) String workerId,
		@Size(min = 1, max = 100,
				message = "must list between 1 and 100 queues") List<@NotNull @Pattern(regexp = QueueNames.PATTERN,
						message = QueueNames.MESSAGE) String> queues,
		Long leaseSeconds, @Min(value = 0, message = WAIT_SECONDS_BOUNDS) @Max(value = 60,
				message = WAIT_SECONDS_BOUNDS) Integer waitSeconds) {

	static final String WAIT_SECONDS_BOUNDS = "must be between 0 and 60";

	/** The wait asked for; none when not given. */
	int waitOrZero() {
		return (this.waitSeconds != null) ? this.waitSeconds : 0;
	}

}
