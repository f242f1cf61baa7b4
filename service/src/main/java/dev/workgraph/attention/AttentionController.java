package dev.workgraph.attention;

import java.net.URI;
import java.util.List;
import java.util.UUID;

import dev.workgraph.access.Caller;
import dev.workgraph.lease.LeaseHolders;
import dev.workgraph.model.AttentionStatus;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.validation.Json;
import dev.workgraph.view.AttentionRequestView;
import dev.workgraph.view.AttentionRequestViews;
import dev.workgraph.view.Page;
import jakarta.validation.Valid;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
class AttentionController {

	private final AttentionCommands commands;

	private final AttentionRequestViews views;

	private final LeaseHolders holders;

	AttentionController(AttentionCommands commands, AttentionRequestViews views, LeaseHolders holders) {
		this.commands = commands;
		this.views = views;
		this.holders = holders;
	}

	@PostMapping("/leases/{leaseId}/attention-requests")
	ResponseEntity<AttentionRequestView> raise(@PathVariable UUID leaseId, @Valid @RequestBody RaiseRequest request) {
		this.holders.requireCallerHolds(leaseId);
		boolean blocking = (request.blocking() == null) || request.blocking();
		Deadline deadline = Deadline.of(request.timeoutSeconds(), request.onTimeout());
		UUID id = this.commands.raise(leaseId, request.epoch(), request.question(), blocking,
				Json.objectText(request.context()), deadline);
		return ResponseEntity.created(URI.create("/attention-requests/" + id)).body(view(id));
	}

	@GetMapping("/attention-requests")
	AttentionRequestPage list(@RequestParam(required = false) String status,
			@RequestParam(required = false) UUID itemId, @RequestParam(required = false) Integer limit,
			@RequestParam(required = false) String cursor) {
		AttentionStatus statusFilter = null;
		if (status != null) {
			try {
				statusFilter = AttentionStatus.fromWire(status);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidRequest("status", "must be open or resolved");
			}
		}
		Page<AttentionRequestView> page = this.views.list(statusFilter, itemId, Page.size(limit), cursor);
		return new AttentionRequestPage(page.entries(), page.nextCursor());
	}

	@GetMapping("/attention-requests/{id}")
	AttentionRequestView get(@PathVariable UUID id) {
		return view(id);
	}

	@PostMapping("/attention-requests/{id}/resolve")
	AttentionRequestView resolve(@PathVariable UUID id, @Valid @RequestBody ResolveRequest request) {
		// Who answered: as given, else the token's name.
		String resolvedBy = (request.resolvedBy() != null) ? request.resolvedBy() : Caller.currentName();
		if (resolvedBy == null) {
			throw new InvalidRequest("resolvedBy", "must not be null");
		}
		this.commands.resolve(id, request.resolution(), resolvedBy);
		return view(id);
	}

	private AttentionRequestView view(UUID id) {
		return this.views.find(id).orElseThrow(() -> new AttentionRequestNotFound(id));
	}

	record AttentionRequestPage(List<AttentionRequestView> attentionRequests, String nextCursor) {
	}

}
