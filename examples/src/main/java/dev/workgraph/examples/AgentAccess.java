package dev.workgraph.examples;

import dev.workgraph.client.IssuedToken;
import dev.workgraph.client.Item;
import dev.workgraph.client.NewToken;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.problem.Forbidden;
import dev.workgraph.client.problem.RequestRejected;
import dev.workgraph.client.problem.ServiceUnreachable;
import dev.workgraph.client.problem.Unauthenticated;
import dev.workgraph.client.problem.WorkGraphException;

/**
 * The tokens the example agent acts with. With access control on, a worker claims with a
 * worker token bound to its worker id, and only an operator or admin may create items: so
 * the agent works with the worker token it is given, or mints one for itself with the
 * admin token (and revokes it when it stops), and seeds its demo plan with the admin
 * token when it has one. What the service refuses is explained with its fix.
 */
public final class AgentAccess implements AutoCloseable {

	private final String url;

	private final String workerToken;

	private final WorkGraphClient admin;

	private IssuedToken minted;

	/**
	 * @param workerToken a worker token, or null
	 * @param adminToken an admin token, or null
	 */
	public AgentAccess(String url, String workerToken, String adminToken) {
		this.url = url;
		this.workerToken = workerToken;
		this.admin = (adminToken != null) ? client(url, adminToken) : null;
	}

	/**
	 * The client the worker acts with: with its worker token; without one but with the
	 * admin token, with a worker token minted now for {@code workerId}; without either,
	 * with no token (for a service with access control off).
	 * @throws Refused when the service refuses or cannot be reached
	 */
	public WorkGraphClient worker(String workerId) {
		if (this.workerToken != null || this.admin == null) {
			return client(this.url, this.workerToken);
		}
		try {
			this.minted = this.admin.createToken(NewToken.worker(workerId, workerId));
		}
		catch (WorkGraphException ex) {
			throw refused("mint a worker token for " + workerId, ex, Sent.ADMIN_TOKEN);
		}
		return client(this.url, this.minted.token());
	}

	/** The worker token minted for this run, or null. */
	public IssuedToken minted() {
		return this.minted;
	}

	/**
	 * Creates the demo plan, as the admin if the agent has the admin token.
	 * @throws Refused when the service refuses or cannot be reached
	 */
	public Item seed(String queue) {
		Sent sent = (this.admin != null) ? Sent.ADMIN_TOKEN
				: (this.workerToken != null) ? Sent.WORKER_TOKEN : Sent.NONE;
		try {
			return ExampleAgent.seed((this.admin != null) ? this.admin : client(this.url, this.workerToken), queue);
		}
		catch (WorkGraphException ex) {
			throw refused("seed the demo plan", ex, sent);
		}
	}

	/** Revokes the worker token minted for this run: nobody else has it. */
	@Override
	public void close() {
		if (this.minted == null) {
			return;
		}
		try {
			this.admin.revokeToken(this.minted.id());
		}
		catch (WorkGraphException ex) {
			System.err.println("Could not revoke the worker token minted for this run (" + this.minted.id() + "): "
					+ ex.getMessage());
		}
	}

	private Refused refused(String what, WorkGraphException failure, Sent sent) {
		String at = "Work Graph at " + this.url;
		if (failure instanceof ServiceUnreachable) {
			return new Refused("Could not reach " + at + " to " + what + ": " + failure.getMessage()
					+ ". Is it running (./mvnw spring-boot:run)?", failure);
		}
		if (!(failure instanceof RequestRejected)) {
			return new Refused("Could not " + what + " at " + this.url + ": " + failure.getMessage(), failure);
		}
		String fix = null;
		if (failure instanceof Unauthenticated) {
			fix = switch (sent) {
				case NONE -> "access control is on, and the agent has no token. Export WG_ADMIN_TOKEN (the admin "
						+ "token the service was started with, or printed on its first start): the agent then mints "
						+ "a worker token of its own";
				case ADMIN_TOKEN -> "WG_ADMIN_TOKEN (or --admin-token) is not a token the service knows: use the admin "
						+ "token it was started with, or printed on its first start";
				case WORKER_TOKEN -> "WORKGRAPH_TOKEN (or --token) is not a token the service knows, or it was "
						+ "revoked: leave it out and export WG_ADMIN_TOKEN, and the agent mints its own";
			};
		}
		else if (failure instanceof Forbidden) {
			fix = (sent == Sent.WORKER_TOKEN)
					? "a worker token may not create items. Export WG_ADMIN_TOKEN too, and the agent seeds as the "
							+ "admin; or seed the plan yourself as an operator (see the README) and start the agent "
							+ "without --seed"
					: "WG_ADMIN_TOKEN (or --admin-token) is not an admin token";
		}
		return new Refused(at + " refused to " + what + " (" + failure.getMessage() + ")"
				+ ((fix != null) ? ": " + fix + "." : "."), failure);
	}

	private static WorkGraphClient client(String url, String token) {
		return WorkGraphClient.builder(url).token(token).build();
	}

	/** Which token a refused request carried. */
	private enum Sent {

		NONE, WORKER_TOKEN, ADMIN_TOKEN

	}

	/** The agent cannot start: the message says why, and what to do. */
	public static final class Refused extends RuntimeException {

		private static final long serialVersionUID = 1L;

		Refused(String message, WorkGraphException cause) {
			super(message, cause);
		}

	}

}
