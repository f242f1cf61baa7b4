package dev.workgraph.lease;

import java.time.Duration;

import dev.workgraph.problem.InvalidRequest;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param defaultSeconds lease length when a claim or renewal names none
 * @param maxSeconds the longest lease a worker may ask for
 * @param reaperInterval how often expired leases are recorded
 * @param maxConsecutiveExpirations expiries in a row after which the crash-loop guard
 * holds the item
 * @param reaperBatchSize expired leases recorded per reaper transaction
 * @param reaperParallelism reaper transactions that run at once while a burst of expiries
 * is recorded
 * @param reaperEnabled whether this instance runs the reaper (tests drive it by hand)
 * @param vacuumInterval how often the claim queue's dead entries are vacuumed away; zero
 * disables
 */
@ConfigurationProperties("workgraph.lease")
public record LeaseProperties(@DefaultValue("300") int defaultSeconds, @DefaultValue("86400") int maxSeconds,
		@DefaultValue("1s") Duration reaperInterval, @DefaultValue("3") int maxConsecutiveExpirations,
		@DefaultValue("1000") int reaperBatchSize, @DefaultValue("true") boolean reaperEnabled,
		@DefaultValue("2s") Duration vacuumInterval, @DefaultValue("2") int reaperParallelism) {

	public LeaseProperties {
		if (maxSeconds < 1 || maxSeconds > 86_400) {
			throw new IllegalArgumentException("workgraph.lease.max-seconds must be between 1 and 86400");
		}
		if (defaultSeconds < 1 || defaultSeconds > maxSeconds) {
			throw new IllegalArgumentException("workgraph.lease.default-seconds must be between 1 and max-seconds");
		}
		if (reaperParallelism < 1 || reaperParallelism > 16) {
			throw new IllegalArgumentException("workgraph.lease.reaper-parallelism must be between 1 and 16");
		}
		if (maxConsecutiveExpirations < 1) {
			throw new IllegalArgumentException("workgraph.lease.max-consecutive-expirations must be at least 1");
		}
	}

	/**
	 * The length of a lease asked for ({@code null}: the default). A {@code Long} so that
	 * any length a client may plausibly send is judged against the configured bounds, not
	 * refused for not fitting an {@code int}.
	 */
	public int leaseSeconds(Long requested) {
		if (requested == null) {
			return this.defaultSeconds;
		}
		return checkedSeconds(requested, "leaseSeconds");
	}

	/**
	 * A lease length a worker asked for in {@code field}, judged against the bounds (a
	 * {@code long}, so that any number a client may plausibly send is judged, not refused
	 * for not fitting an {@code int}).
	 */
	public int checkedSeconds(long requested, String field) {
		if (requested < 1 || requested > maxSeconds()) {
			throw new InvalidRequest(field, "must be between 1 and " + maxSeconds());
		}
		return (int) requested;
	}

}
