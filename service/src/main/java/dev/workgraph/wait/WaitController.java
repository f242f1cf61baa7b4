package dev.workgraph.wait;

import java.util.UUID;

import dev.workgraph.access.Caller;
import dev.workgraph.lease.LeaseHolders;
import jakarta.validation.Valid;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class WaitController {

	private final WaitCommands commands;

	private final LeaseHolders holders;

	WaitController(WaitCommands commands, LeaseHolders holders) {
		this.commands = commands;
		this.holders = holders;
	}

	/**
	 * 201: the lease ended {@code waiting}; the item waits for the event (or, matched at
	 * once by a retained event, is ready again).
	 */
	@PostMapping("/leases/{leaseId}/waits")
	ResponseEntity<WaitCommands.Registered> register(@PathVariable UUID leaseId,
			@Valid @RequestBody WaitRequest request) {
		this.holders.requireCallerHolds(leaseId);
		return ResponseEntity.status(HttpStatus.CREATED).body(this.commands.register(leaseId, request));
	}

	/**
	 * 202 with the new event's id and the waits it matched; 200 with the first one's for
	 * a repeat of the sender's {@code id}.
	 */
	@PostMapping("/events")
	ResponseEntity<WaitCommands.Received> receive(@Valid @RequestBody EventRequest request) {
		Caller.requireMaySend(request.name());
		WaitCommands.Received received = this.commands.receive(request);
		return ResponseEntity.status(received.duplicate() ? HttpStatus.OK : HttpStatus.ACCEPTED).body(received);
	}

}
