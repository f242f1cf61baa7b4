package dev.workgraph.client.problem;

/**
 * No answer came: the connection was refused or reset, or the request timed out.
 * Transient; but note {@link #requestMayHaveBeenProcessed()}: when the request went out
 * and the answer was lost, the service may have done what was asked, and sending it again
 * must be safe (a lease write sent again is refused as {@code lease_ended} if the first
 * one ended the lease; {@code GET /leases/{id}} then tells whose write it was).
 */
public class ServiceUnreachable extends WorkGraphException {

	private static final long serialVersionUID = 1L;

	private final boolean requestMayHaveBeenProcessed;

	private final boolean timedOut;

	public ServiceUnreachable(String message, Throwable cause, boolean requestMayHaveBeenProcessed, boolean timedOut) {
		super(message, cause);
		this.requestMayHaveBeenProcessed = requestMayHaveBeenProcessed;
		this.timedOut = timedOut;
	}

	/**
	 * False only when the request certainly never reached the service (no connection
	 * could be made).
	 */
	public boolean requestMayHaveBeenProcessed() {
		return this.requestMayHaveBeenProcessed;
	}

	/** The request (or the connection attempt) ran out of time. */
	public boolean timedOut() {
		return this.timedOut;
	}

	@Override
	public boolean isTransient() {
		return true;
	}

}
