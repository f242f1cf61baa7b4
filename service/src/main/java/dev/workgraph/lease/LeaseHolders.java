package dev.workgraph.lease;

import java.util.Optional;
import java.util.UUID;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.workgraph.access.Caller;
import dev.workgraph.access.Forbidden;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Who a lease belongs to. A worker token acts only on leases granted to its own worker:
 * {@link #requireCallerHolds} is the check every lease mutation makes (and a batch makes
 * per entry) before fencing, so an impostor learns nothing about the lease's state and
 * writes nothing.
 *
 * <p>
 * It needs no lock and no transaction: a lease id is one grant, and its worker never
 * changes (the lease moves from {@code leases} to {@code lease_history} unchanged), so
 * the answer read here is the answer at the time of the write. For the same reason the
 * answer can be remembered: leases granted by this instance, and those looked up once,
 * are checked without a round trip (a bounded memory; what it forgot is read again).
 */
@Repository
public class LeaseHolders {

	static final String WORKER_OF_LEASE = """
			select worker_id from leases where id = :leaseId
			union all
			select worker_id from lease_history where lease_id = :leaseId
			""";

	/** Enough for the leases of every worker of a busy instance, a few MiB at most. */
	private static final int REMEMBERED_LEASES = 100_000;

	private final JdbcClient jdbc;

	/**
	 * Every claim writes here and every completion reads and writes: the cache's upkeep
	 * runs on the request's own thread, since handing it to the common pool (Caffeine's
	 * default) woke a pool thread for nearly every write.
	 */
	private final Cache<UUID, String> holders = Caffeine.newBuilder()
		.maximumSize(REMEMBERED_LEASES)
		.executor(Runnable::run)
		.build();

	LeaseHolders(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/** Remembers the worker of a lease this instance has just granted. */
	public void granted(UUID leaseId, String workerId) {
		this.holders.put(leaseId, workerId);
	}

	/**
	 * Forgets a lease that has ended. Its holder's later calls are refused by fencing
	 * anyway and read the worker again first; remembered, every ended lease would live on
	 * until the size bound evicts it, long enough to be promoted to the old generation,
	 * which then fills with them at the rate leases end (measured: about 0.2 MiB/s at
	 * 1,300 items/s) until a full collection clears it. The rarer endings (expiry,
	 * decomposition) are left to the size bound.
	 */
	public void ended(UUID leaseId) {
		this.holders.invalidate(leaseId);
	}

	/** Whether the lease's worker is remembered (for tests). */
	public boolean remembers(UUID leaseId) {
		return this.holders.getIfPresent(leaseId) != null;
	}

	/**
	 * Passes when the current caller may act on the lease: anyone when access control is
	 * off, operators and admins (whom the access rules keep from lease mutations anyway),
	 * and the worker the lease was granted to. An unknown lease is 404 {@code not_found}
	 * (as without access control); another worker's lease is 403 {@code forbidden}.
	 */
	public void requireCallerHolds(UUID leaseId) {
		Optional<String> worker = Caller.currentWorker();
		if (worker.isEmpty()) {
			return;
		}
		String holder = this.holders.get(leaseId, this::workerOf);
		if (holder == null) {
			throw new LeaseNotFound(leaseId);
		}
		if (!holder.equals(worker.get())) {
			throw new Forbidden(
					"Lease " + leaseId + " was granted to another worker; this token acts as worker " + worker.get());
		}
	}

	/** The lease's worker, or null for a lease never granted (not remembered then). */
	private String workerOf(UUID leaseId) {
		return this.jdbc.sql(WORKER_OF_LEASE).param("leaseId", leaseId).query(String.class).optional().orElse(null);
	}

}
