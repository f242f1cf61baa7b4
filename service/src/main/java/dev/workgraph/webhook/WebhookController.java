package dev.workgraph.webhook;

import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.UUID;

import dev.workgraph.access.Caller;
import dev.workgraph.change.ChangeTypes;
import dev.workgraph.problem.FieldError;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.sql.Uuid7;
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
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Webhook management (admins). The secret is in the answer to {@code POST /webhooks} and
 * nowhere else the API shows.
 */
@RestController
@RequestMapping("/webhooks")
class WebhookController {

	private static final Logger log = LoggerFactory.getLogger(WebhookController.class);

	static final int MAX_DELIVERIES = 500;

	private final Webhooks webhooks;

	private final AllowedHosts allowedHosts;

	private final WebhookDispatcher dispatcher;

	WebhookController(Webhooks webhooks, WebhookProperties properties, WebhookDispatcher dispatcher) {
		this.webhooks = webhooks;
		this.allowedHosts = new AllowedHosts(properties.allowedHosts());
		this.dispatcher = dispatcher;
	}

	@PostMapping
	ResponseEntity<CreatedWebhook> create(@Valid @RequestBody NewWebhookRequest request) {
		List<FieldError> errors = new ArrayList<>();
		String urlRefusal = this.allowedHosts.refusal(request.url());
		if (urlRefusal != null) {
			errors.add(new FieldError("url", urlRefusal));
		}
		LinkedHashSet<String> types = new LinkedHashSet<>();
		for (String type : (request.types() != null) ? request.types() : List.<String>of()) {
			if (!ChangeTypes.ALL.contains(type)) {
				errors.add(new FieldError("types",
						"has unknown type '" + type + "'; known: " + String.join(", ", ChangeTypes.ALL)));
				break;
			}
			types.add(type);
		}
		String secret = (request.secret() != null) ? request.secret() : WebhookSecrets.newSecret();
		String secretRefusal = WebhookSecrets.refusal(secret);
		if (secretRefusal != null) {
			errors.add(new FieldError("secret", secretRefusal));
		}
		if (!errors.isEmpty()) {
			throw new InvalidRequest(errors);
		}
		WebhookView created = this.webhooks.insert(Uuid7.next(), request.url(), List.copyOf(types), secret,
				Caller.currentName());
		log.info("Webhook {} created for {} by {}", created.id(), created.url(), Caller.currentName());
		this.dispatcher.created();
		return ResponseEntity.created(URI.create("/webhooks/" + created.id()))
			.body(new CreatedWebhook(created.id(), created.url(), created.types(), secret, created.lastSeq(),
					created.createdAt()));
	}

	@GetMapping
	WebhookList list() {
		return new WebhookList(this.webhooks.list());
	}

	@DeleteMapping("/{id}")
	ResponseEntity<Void> delete(@PathVariable UUID id) {
		if (!this.webhooks.delete(id)) {
			throw new WebhookNotFound(id);
		}
		log.info("Webhook {} deleted by {}", id, Caller.currentName());
		return ResponseEntity.noContent().build();
	}

	@GetMapping("/{id}/deliveries")
	DeliveryList deliveries(@PathVariable UUID id, @RequestParam(defaultValue = "50") int limit) {
		if (limit < 1 || limit > MAX_DELIVERIES) {
			throw new InvalidRequest("limit", "must be between 1 and " + MAX_DELIVERIES);
		}
		List<DeliveryView> deliveries = this.webhooks.deliveries(id, limit);
		if (deliveries.isEmpty() && !this.webhooks.exists(id)) {
			throw new WebhookNotFound(id);
		}
		return new DeliveryList(deliveries);
	}

	/**
	 * The answer to {@code POST /webhooks}: the only time the secret is shown.
	 *
	 * @param lastSeq the stream's last seq when it was created: it is sent the changes
	 * after it
	 */
	record CreatedWebhook(UUID id, String url, List<String> types, String secret, long lastSeq, Instant createdAt) {
	}

	record WebhookList(List<WebhookView> webhooks) {
	}

	/** Newest first. */
	record DeliveryList(List<DeliveryView> deliveries) {
	}

}
