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
 * Body of {@code POST /claims/batch}: {@link ClaimRequest}'s fields ({@code workerId} may
 * be left out with a worker token), how many items at most ({@code limit}, 1–500) and how
 * long to wait when nothing is ready ({@code waitSeconds}, 0–60, as a single claim).
 */
record BatchClaimRequest(@Text(min = 1, max = 200) String workerId,
		@Size(min = 1, max = 100,
				message = "must list between 1 and 100 queues") List<@NotNull @Pattern(regexp = QueueNames.PATTERN,
						message = QueueNames.MESSAGE) String> queues,
		Long leaseSeconds,
		@NotNull @Min(value = 1, message = "must be between 1 and 500") @Max(value = 500,
				message = "must be between 1 and 500") Integer limit,
		@Min(value = 0, message = ClaimRequest.WAIT_SECONDS_BOUNDS) @Max(value = 60,
				message = ClaimRequest.WAIT_SECONDS_BOUNDS) Integer waitSeconds) {
}
