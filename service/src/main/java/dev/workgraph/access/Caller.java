package dev.workgraph.access;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.OAuth2AuthenticatedPrincipal;

/**
 * Who is making the current request: the token it presented. Features ask
 * {@link #current()}; it is empty when access control is off (and on threads that serve
 * no request, such as the reaper), and then nothing is restricted and nothing is recorded
 * as the author of a change.
 *
 * @param tokenId the token's id (null for the configured bootstrap token)
 * @param name the token's name, recorded as the author of changes
 * @param role what it may do
 * @param workerId the worker a worker token acts as, else null
 * @param queues the only queues a worker token may claim from (and create items in), null
 * for every queue
 * @param createItems whether a worker token may also create items
 * @param eventNames the only event names an events token may send, null for every name
 */
public record Caller(UUID tokenId, String name, Role role, String workerId, List<String> queues, boolean createItems,
		List<String> eventNames) implements OAuth2AuthenticatedPrincipal {

	/**
	 * The authority of a worker token that may create items ({@code POST /items}), beside
	 * its role's.
	 */
	static final String CREATE_ITEMS = "CREATE_ITEMS";

	private static final List<GrantedAuthority> CREATING_WORKER_AUTHORITIES = List.of(Role.WORKER.authorities().get(0),
			new SimpleGrantedAuthority(CREATE_ITEMS));

	/** A caller whose claims are not limited to some queues and who creates no items. */
	public Caller(UUID tokenId, String name, Role role, String workerId) {
		this(tokenId, name, role, workerId, null, false, null);
	}

	/** The caller of the request this thread serves, if access control identified one. */
	public static Optional<Caller> current() {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		if (authentication != null && authentication.getPrincipal() instanceof Caller caller) {
			return Optional.of(caller);
		}
		return Optional.empty();
	}

	/** The current caller's name, or null: the author to record for a change. */
	public static String currentName() {
		return current().map(Caller::name).orElse(null);
	}

	/**
	 * The worker the current caller is bound to when it is a worker token; empty for
	 * operators, admins and when access control is off.
	 */
	public static Optional<String> currentWorker() {
		return current().filter((caller) -> caller.role() == Role.WORKER).map(Caller::workerId);
	}

	/**
	 * Refuses with 403 {@code forbidden} when the current caller is a worker token bound
	 * to another worker than {@code workerId}; anyone else passes.
	 */
	public static void requireActingAs(String workerId, String what) {
		Optional<String> worker = currentWorker();
		if (worker.isPresent() && !worker.get().equals(workerId)) {
			throw new Forbidden("This token acts as worker " + worker.get() + " and may not " + what);
		}
	}

	/**
	 * The queues a claim of the current caller takes from: {@code requested} (null for
	 * every queue) when the caller's token is not limited to some queues; else its queues
	 * when none are requested, and 403 {@code forbidden} when a requested queue is not
	 * one of them.
	 */
	public static List<String> claimableQueues(List<String> requested) {
		List<String> allowed = current().map(Caller::queues).orElse(null);
		if (allowed == null) {
			return requested;
		}
		if (requested == null) {
			return allowed;
		}
		List<String> outside = requested.stream().filter((queue) -> !allowed.contains(queue)).distinct().toList();
		if (!outside.isEmpty()) {
			throw new Forbidden("This token may claim only from the queues " + String.join(", ", allowed)
					+ ", not from " + String.join(", ", outside));
		}
		return requested;
	}

	/**
	 * Refuses with 403 {@code forbidden} when the current caller's token may send only
	 * events of some names and {@code eventName} is not one of them.
	 */
	public static void requireMaySend(String eventName) {
		List<String> allowed = current().map(Caller::eventNames).orElse(null);
		if (allowed != null && !allowed.contains(eventName)) {
			throw new Forbidden("This token may send only events named " + String.join(", ", allowed));
		}
	}

	@Override
	public Map<String, Object> getAttributes() {
		return Map.of();
	}

	/**
	 * Refuses with 403 {@code forbidden} an item a worker token may not create: a child
	 * of another item (a worker adds children only by decomposing the item it holds) or
	 * one outside the queues its token is limited to. Operators and admins pass.
	 */
	public static void requireMayCreate(String queue, UUID parentId) {
		Optional<Caller> worker = current().filter((caller) -> caller.role() == Role.WORKER);
		if (worker.isEmpty()) {
			return;
		}
		if (parentId != null) {
			throw new Forbidden("A worker token may not add children to an item; decompose the item you hold instead");
		}
		List<String> allowed = worker.get().queues();
		if (allowed != null && !allowed.contains(queue)) {
			throw new Forbidden("This token may create items only in the queues " + String.join(", ", allowed)
					+ ", not in " + queue);
		}
	}

	@Override
	public List<GrantedAuthority> getAuthorities() {
		return (this.createItems && this.role == Role.WORKER) ? CREATING_WORKER_AUTHORITIES : this.role.authorities();
	}

	@Override
	public String getName() {
		return this.name;
	}

}
