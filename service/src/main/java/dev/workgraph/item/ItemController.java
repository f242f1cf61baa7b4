package dev.workgraph.item;

import java.net.URI;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

import dev.workgraph.access.Caller;
import dev.workgraph.access.Forbidden;
import dev.workgraph.model.ItemStatus;
import dev.workgraph.view.CheckpointView;
import dev.workgraph.view.CheckpointViews;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.validation.TextRules;
import dev.workgraph.view.DependencyView;
import dev.workgraph.view.ItemView;
import dev.workgraph.view.ItemViews;
import dev.workgraph.view.LeaseView;
import dev.workgraph.view.LeaseViews;
import dev.workgraph.view.Page;
import dev.workgraph.web.RequestBodies;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.Valid;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/items")
class ItemController {

	private static final String STATUSES = "must be one or more (comma-separated) of blocked, ready, leased, completed, cancelled";

	private static final int MIN_SEARCH_LENGTH = 3;

	private final ItemCommands commands;

	private final ItemViews views;

	private final LeaseViews leases;

	private final RequestBodies bodies;

	private final CheckpointViews checkpoints;

	ItemController(ItemCommands commands, ItemViews views, LeaseViews leases, RequestBodies bodies,
			CheckpointViews checkpoints) {
		this.commands = commands;
		this.views = views;
		this.leases = leases;
		this.bodies = bodies;
		this.checkpoints = checkpoints;
	}

	/**
	 * The body is bound by hand (see RequestBodies); the API document shows its shape.
	 */
	@PostMapping
	@io.swagger.v3.oas.annotations.parameters.RequestBody(required = true,
			content = @Content(schema = @Schema(implementation = CreateItemRequest.class)))
	ResponseEntity<ItemView> create(@RequestBody ObjectNode body,
			@RequestHeader(name = "Idempotency-Key", required = false) String idempotencyKey) {
		CreateItemRequest request = this.bodies.bind(body, CreateItemRequest.class);
		Caller.requireMayCreate(Objects.requireNonNullElse(request.queue(), QueueNames.DEFAULT), request.parentId());
		if (idempotencyKey != null) {
			String problem = TextRules.problemWith(idempotencyKey);
			int length = TextRules.codePoints(idempotencyKey);
			if (problem != null || length < 1 || length > 200) {
				throw new InvalidRequest("Idempotency-Key",
						(problem != null) ? problem : "must be 1 to 200 characters");
			}
		}
		ItemCommands.Created created = this.commands.create(request, idempotencyKey, TextRules.compactJson(body));
		ItemView item = view(created.itemId());
		if (created.replayed()) {
			return ResponseEntity.ok(item);
		}
		return ResponseEntity.created(URI.create("/items/" + item.id())).body(item);
	}

	/**
	 * A JSON merge patch (operator): {@code notBefore} set, cleared with null, or left as
	 * it is when absent. The body is bound by hand to tell absent from null.
	 */
	@PatchMapping("/{id}")
	@io.swagger.v3.oas.annotations.parameters.RequestBody(required = true,
			content = @Content(schema = @Schema(implementation = PatchItemRequest.class)))
	ItemView patch(@PathVariable UUID id, @RequestBody ObjectNode body) {
		PatchItemRequest request = this.bodies.bind(body, PatchItemRequest.class);
		if (body.has("notBefore")) {
			this.commands.reschedule(id, NotBefore.parse("notBefore", request.notBefore()));
		}
		return view(id);
	}

	@GetMapping("/{id}")
	ItemView get(@PathVariable UUID id) {
		ItemView item = view(id);
		requireWorkerHeld(id);
		return item;
	}

	@GetMapping
	ItemPage list(@RequestParam(required = false) List<String> status, @RequestParam(required = false) String queue,
			@RequestParam(required = false) UUID parentId, @RequestParam(required = false) String q,
			@RequestParam(required = false) Integer limit, @RequestParam(required = false) String cursor,
			@RequestParam(required = false) String order) {
		if (order != null && !order.equals("oldest") && !order.equals("newest")) {
			throw new InvalidRequest("order", "must be newest or oldest");
		}
		Set<ItemStatus> statusFilter = null;
		if (status != null) {
			// Several statuses, comma-separated or repeated: status=ready,blocked.
			statusFilter = EnumSet.noneOf(ItemStatus.class);
			for (String each : status.stream().flatMap((value) -> Arrays.stream(value.split(",", -1))).toList()) {
				try {
					// Any letter case has always been accepted here.
					statusFilter.add(ItemStatus.fromWire(each.strip().toLowerCase(Locale.ROOT)));
				}
				catch (IllegalArgumentException ex) {
					throw new InvalidRequest("status", STATUSES);
				}
			}
			if (statusFilter.isEmpty()) {
				throw new InvalidRequest("status", STATUSES);
			}
		}
		if (queue != null && !queue.matches(QueueNames.PATTERN)) {
			throw new InvalidRequest("queue", QueueNames.MESSAGE);
		}
		int pageSize = Page.size(limit);
		Page<ItemView> page = this.views.list(
				new ItemViews.ItemFilter(statusFilter, queue, parentId, titleSearch(q), "newest".equals(order)),
				pageSize, cursor);
		return new ItemPage(page.entries(), page.nextCursor());
	}

	/** The items that depend on this one, a page at a time. */
	@GetMapping("/{id}/dependents")
	DependentPage dependents(@PathVariable UUID id, @RequestParam(required = false) Integer limit,
			@RequestParam(required = false) String cursor) {
		int pageSize = Page.size(limit);
		Page<DependencyView> page = this.views.dependents(id, pageSize, cursor);
		if (page.entries().isEmpty() && cursor == null) {
			// 404 for an unknown item; most items have no dependents.
			view(id);
		}
		return new DependentPage(page.entries(), page.nextCursor());
	}

	@PostMapping("/{id}/dependencies")
	ResponseEntity<ItemView> addDependency(@PathVariable UUID id, @Valid @RequestBody AddDependencyRequest request) {
		boolean added = this.commands.addDependency(id, request.dependsOn());
		return ResponseEntity.status(added ? HttpStatus.CREATED : HttpStatus.OK).body(view(id));
	}

	@DeleteMapping("/{id}/dependencies/{dependsOnId}")
	ResponseEntity<Void> removeDependency(@PathVariable UUID id, @PathVariable UUID dependsOnId) {
		this.commands.removeDependency(id, dependsOnId);
		return ResponseEntity.noContent().build();
	}

	@PostMapping("/{id}/cancel")
	ItemView cancel(@PathVariable UUID id, @Valid @RequestBody(required = false) CancelRequest request) {
		this.commands.cancel(id, (request != null) ? request.reason() : null);
		return view(id);
	}

	@GetMapping("/{id}/leases")
	LeaseList leases(@PathVariable UUID id, @RequestParam(required = false) Integer limit,
			@RequestParam(required = false) String cursor) {
		Page<LeaseView> leases = this.leases.ofItem(id, Page.size(limit), cursor);
		if (leases.entries().isEmpty()) {
			// 404 for an unknown item; an item never claimed has an empty history.
			view(id);
		}
		requireWorkerHeld(id);
		return new LeaseList(leases.entries(), leases.nextCursor());
	}

	/** The item's checkpoints, newest first, a page at a time. */
	@GetMapping("/{id}/checkpoints")
	CheckpointList checkpoints(@PathVariable UUID id, @RequestParam(required = false) Integer limit,
			@RequestParam(required = false) String cursor) {
		Page<CheckpointView> checkpoints = this.checkpoints.ofItem(id, Page.size(limit), cursor);
		if (checkpoints.entries().isEmpty()) {
			// 404 for an unknown item; most items never checkpoint.
			view(id);
		}
		requireWorkerHeld(id);
		return new CheckpointList(checkpoints.entries(), checkpoints.nextCursor());
	}

	/**
	 * The text {@code q} asks titles to contain. At least three characters, so that the
	 * trigram index answers it instead of a scan of every title.
	 */
	private static String titleSearch(String q) {
		if (q == null) {
			return null;
		}
		String text = q.strip();
		String problem = TextRules.problemWith(text);
		int length = TextRules.codePoints(text);
		if (problem != null || length < MIN_SEARCH_LENGTH || length > 200) {
			throw new InvalidRequest("q", (problem != null) ? problem
					: "must be " + MIN_SEARCH_LENGTH + " to 200 characters (leading and trailing spaces ignored)");
		}
		return text;
	}

	/**
	 * A worker token reads only the items it holds or held (checked after the 404, so an
	 * unknown item is still 404).
	 */
	private void requireWorkerHeld(UUID id) {
		Caller.currentWorker().ifPresent((worker) -> {
			if (!this.leases.heldBy(id, worker)) {
				throw new Forbidden(
						"This token acts as worker " + worker + " and may read only items it holds or held");
			}
		});
	}

	private ItemView view(UUID id) {
		return this.views.find(id).orElseThrow(() -> new ItemNotFound(id));
	}

	record ItemPage(List<ItemView> items, String nextCursor) {
	}

	record LeaseList(List<LeaseView> leases, String nextCursor) {
	}

	record CheckpointList(List<CheckpointView> checkpoints, String nextCursor) {
	}

	record DependentPage(List<DependencyView> items, String nextCursor) {
	}

}
