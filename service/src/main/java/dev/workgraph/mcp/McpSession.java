package dev.workgraph.mcp;

import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One MCP session: whose it is, the token it last presented, and the lease it holds. The
 * lease's id and epoch live here and nowhere else: the model never sees them.
 *
 * <p>
 * The held lease is swapped atomically: the renewer and the tool calls both replace it,
 * and each only replaces the very grant it read, so a renewal answered after a completion
 * cannot bring the completed lease back.
 */
final class McpSession {

	private final String id;

	/** The worker of the token that opened the session; null without access control. */
	private final String owner;

	private volatile String authorization;

	private volatile long lastSeenNanos = System.nanoTime();

	private final AtomicReference<HeldLease> held = new AtomicReference<>();

	/**
	 * Why the last lease was lost behind the model's back (the stale-lease code a renewal
	 * answered), until the next claim: the next tool call that needs a lease says so.
	 */
	private volatile String lostCode;

	/** The item last held: what {@code get_item} reads when no lease is held. */
	private volatile UUID lastItemId;

	/** Tool calls of one session run one at a time: one claim, then the next. */
	private final ReentrantLock tools = new ReentrantLock();

	McpSession(String id, String owner, String authorization) {
		this.id = id;
		this.owner = owner;
		this.authorization = authorization;
	}

	String id() {
		return this.id;
	}

	/**
	 * The worker the session claims as: the token's, or without access control one of the
	 * session's own.
	 */
	String workerId() {
		return (this.owner != null) ? this.owner : "mcp-" + this.id;
	}

	boolean securedAs(String worker) {
		return Objects.equals(this.owner, worker);
	}

	boolean secured() {
		return this.owner != null;
	}

	String authorization() {
		return this.authorization;
	}

	/** A request of this session arrived, with this Authorization header. */
	void seen(String authorization) {
		this.lastSeenNanos = System.nanoTime();
		if (authorization != null) {
			this.authorization = authorization;
		}
	}

	long idleNanos() {
		return System.nanoTime() - this.lastSeenNanos;
	}

	HeldLease held() {
		return this.held.get();
	}

	void hold(HeldLease lease) {
		this.held.set(lease);
		this.lastItemId = lease.itemId();
		this.lostCode = null;
	}

	/** Replaces {@code expected} (renewed), unless the session has moved on from it. */
	boolean replace(HeldLease expected, HeldLease renewed) {
		return this.held.compareAndSet(expected, renewed);
	}

	/** Lets go of {@code lease} (it ended), unless the session already has. */
	boolean drop(HeldLease lease) {
		return this.held.compareAndSet(lease, null);
	}

	/** Lets go of {@code lease}, which the service no longer honours, and notes why. */
	void lose(HeldLease lease, String code) {
		if (this.held.compareAndSet(lease, null)) {
			this.lostCode = (code != null) ? code : "lease_lost";
		}
	}

	String lostCode() {
		return this.lostCode;
	}

	/** Lets go of whatever it holds, and answers that. */
	HeldLease dropAny() {
		return this.held.getAndSet(null);
	}

	UUID lastItemId() {
		return this.lastItemId;
	}

	ReentrantLock tools() {
		return this.tools;
	}

	/**
	 * A lease the session holds.
	 *
	 * @param leaseId the grant
	 * @param epoch its epoch, presented with every write
	 * @param itemId the item held
	 * @param renewedAtNanos when it was granted or last renewed, by
	 * {@link System#nanoTime()}
	 */
	record HeldLease(UUID leaseId, long epoch, UUID itemId, long renewedAtNanos) {

		HeldLease renewed() {
			return new HeldLease(this.leaseId, this.epoch, this.itemId, System.nanoTime());
		}

	}

}
