package dev.workgraph.access;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.workgraph.problem.InvalidRequest;
import jakarta.validation.Valid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Token management (admins, see {@link AccessRules}), and who the caller is (any token).
 * The secret is in the answer to {@code POST /tokens} and nowhere else: not in the
 * database, the listing or the log.
 */
@RestController
@RequestMapping("/tokens")
class TokenController {

	private static final Logger log = LoggerFactory.getLogger(TokenController.class);

	private final Tokens tokens;

	private final Revocations revocations;

	TokenController(Tokens tokens, Revocations revocations) {
		this.tokens = tokens;
		this.revocations = revocations;
	}

	@PostMapping
	ResponseEntity<IssuedToken> create(@Valid @RequestBody NewTokenRequest request) {
		Role role;
		try {
			role = Role.fromWire(request.role());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRequest("role", "must be one of worker, operator, admin, events");
		}
		if (role == Role.WORKER && request.workerId() == null) {
			throw new InvalidRequest("workerId", "is required for a worker token");
		}
		if (role != Role.WORKER && request.workerId() != null) {
			throw new InvalidRequest("workerId", "is only for worker tokens");
		}
		if (role != Role.WORKER && request.queues() != null) {
			throw new InvalidRequest("queues", "is only for worker tokens");
		}
		boolean createItems = Boolean.TRUE.equals(request.createItems());
		if (role != Role.WORKER && createItems) {
			throw new InvalidRequest("createItems", "is only for worker tokens (operators and admins create items)");
		}
		if (role != Role.EVENTS && request.eventNames() != null) {
			throw new InvalidRequest("eventNames", "is only for events tokens");
		}
		List<String> queues = (request.queues() != null) ? request.queues().stream().distinct().toList() : null;
		List<String> eventNames = (request.eventNames() != null) ? request.eventNames().stream().distinct().toList()
				: null;
		String secret = TokenSecrets.newSecret();
		Tokens.TokenRow row = this.tokens.insert(request.name(), role, request.workerId(), queues, createItems,
				eventNames, TokenSecrets.hash(secret));
		log.info("Token {} created for {} (role {}{}) by {}", row.id(), row.name(), role.wire(),
				(row.workerId() != null) ? ", worker " + row.workerId() : "", Caller.currentName());
		return ResponseEntity.created(URI.create("/tokens/" + row.id()))
			.body(new IssuedToken(row.id(), row.name(), row.role(), row.workerId(), row.queues(), row.createItems(),
					row.eventNames(), secret, row.createdAt()));
	}

	@GetMapping
	TokenList list() {
		return new TokenList(this.tokens.list());
	}

	/**
	 * Who the caller is, for any token: the console says as whom one is signed in, and a
	 * script can check which token it holds. Never the secret.
	 */
	@GetMapping("/current")
	CurrentToken current() {
		return Caller.current()
			.map((caller) -> new CurrentToken(caller.tokenId(), caller.name(), caller.role(), caller.workerId()))
			.orElseGet(() -> new CurrentToken(null, null, null, null));
	}

	@DeleteMapping("/{id}")
	ResponseEntity<Void> revoke(@PathVariable UUID id) {
		if (!this.tokens.revoke(id)) {
			throw new TokenNotFound(id);
		}
		// Answered once no instance remembers the token any more.
		this.revocations.announceAndAwait(id);
		log.info("Token {} revoked by {}", id, Caller.currentName());
		return ResponseEntity.noContent().build();
	}

	/** The answer to {@code POST /tokens}: the only time the secret is shown. */
	record IssuedToken(UUID id, String name, Role role, String workerId, List<String> queues, boolean createItems,
			@JsonInclude(JsonInclude.Include.NON_NULL) List<String> eventNames, String token, Instant createdAt) {
	}

	record TokenList(List<Tokens.TokenRow> tokens) {
	}

	/**
	 * The answer to {@code GET /tokens/current}: every member null with access control
	 * off, {@code id} null for the configured bootstrap token (it is no stored token).
	 */
	record CurrentToken(UUID id, String name, Role role, String workerId) {
	}

}
