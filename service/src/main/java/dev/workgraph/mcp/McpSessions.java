package dev.workgraph.mcp;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The open MCP sessions of this instance and the leases they hold. Each held lease is
 * renewed every third of its length while its session lives, through the same {@code POST
 * /leases/{id}/renew} any worker calls. A session that ends with a DELETE releases its
 * lease at once; one that goes quiet for {@code workgraph.mcp.idle-timeout} is forgotten
 * without a word, and its lease expires like a crashed worker's (so the crash-loop guard
 * counts it).
 */
@Component
class McpSessions {

	/** The reason recorded when a session's DELETE gives its item back. */
	static final String SESSION_CLOSED = "the MCP session holding it was closed";

	private static final Logger log = LoggerFactory.getLogger(McpSessions.class);

	private final Map<String, McpSession> sessions = new ConcurrentHashMap<>();

	/** Sessions whose renewal is under way, so that a slow one is not started twice. */
	private final Set<String> renewing = ConcurrentHashMap.newKeySet();

	private final ServiceCalls calls;

	private final McpProperties properties;

	McpSessions(ServiceCalls calls, McpProperties properties) {
		this.calls = calls;
		this.properties = properties;
	}

	void open(String id, String owner, String authorization) {
		this.sessions.put(id, new McpSession(id, owner, authorization));
	}

	Optional<McpSession> find(String id) {
		return Optional.ofNullable(this.sessions.get(id));
	}

	int size() {
		return this.sessions.size();
	}

	/** The session's client ended it: its item goes back at once. */
	void close(String id) {
		McpSession session = this.sessions.remove(id);
		if (session == null) {
			return;
		}
		McpSession.HeldLease held = session.dropAny();
		if (held == null) {
			return;
		}
		try {
			ServiceCalls.Answer released = this.calls.post("/leases/" + held.leaseId() + "/release",
					Map.of("epoch", held.epoch(), "reason", SESSION_CLOSED), session.authorization());
			log.debug("MCP session {} closed; releasing lease {} answered {}", id, held.leaseId(), released.status());
		}
		catch (RuntimeException ex) {
			// The session is over either way: the lease expires instead.
			log.warn("MCP session {} closed, but releasing lease {} failed: {}", id, held.leaseId(), ex.getMessage());
		}
	}

	/**
	 * Renews what is due and forgets idle sessions. Each renewal runs on a virtual thread
	 * of its own, so one slow answer delays no other session's renewal.
	 */
	@Scheduled(fixedDelayString = "${workgraph.mcp.renew-check-interval:1s}")
	void renewDue() {
		long idleLimit = this.properties.idleTimeout().toNanos();
		long renewEvery = this.properties.renewEvery().toNanos();
		for (McpSession session : this.sessions.values()) {
			if (session.idleNanos() > idleLimit) {
				this.sessions.remove(session.id());
				log.info("MCP session {} of worker {} was idle for {}: forgotten, its lease (if any) left to expire",
						session.id(), session.workerId(), this.properties.idleTimeout());
				continue;
			}
			McpSession.HeldLease held = session.held();
			if (held != null && System.nanoTime() - held.renewedAtNanos() >= renewEvery
					&& this.renewing.add(session.id())) {
				Thread.ofVirtual().name("mcp-renew").start(() -> {
					try {
						renew(session, held);
					}
					finally {
						this.renewing.remove(session.id());
					}
				});
			}
		}
	}

	private void renew(McpSession session, McpSession.HeldLease held) {
		ServiceCalls.Answer answer;
		try {
			answer = this.calls.post("/leases/" + held.leaseId() + "/renew",
					Map.of("epoch", held.epoch(), "leaseSeconds", this.properties.leaseSeconds()),
					session.authorization());
		}
		catch (RuntimeException ex) {
			log.warn("Renewing lease {} of MCP session {} failed; trying again shortly: {}", held.leaseId(),
					session.id(), ex.getMessage());
			return;
		}
		if (answer.succeeded()) {
			session.replace(held, held.renewed());
		}
		else if (answer.status() < 500) {
			// Fenced (the lease is gone), or the token no longer may: the session lets
			// go,
			// and its next tool call says so.
			session.lose(held, answer.code());
			log.info("MCP session {} lost lease {}: renewal answered {} {}", session.id(), held.leaseId(),
					answer.status(), answer.code());
		}
		else {
			log.warn("Renewing lease {} of MCP session {} answered {}; trying again shortly", held.leaseId(),
					session.id(), answer.status());
		}
	}

}
