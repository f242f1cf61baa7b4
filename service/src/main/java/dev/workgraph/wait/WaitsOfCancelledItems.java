package dev.workgraph.wait;

import java.util.List;
import java.util.UUID;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.CancellationParticipant;
import dev.workgraph.item.Readiness;

import org.springframework.stereotype.Component;

/**
 * A cancelled item waits for nothing: its open waits become {@code cancelled} (an event
 * that comes later matches none of them).
 */
@Component
class WaitsOfCancelledItems implements CancellationParticipant {

	private final Waits waits;

	private final Readiness readiness;

	WaitsOfCancelledItems(Waits waits, Readiness readiness) {
		this.waits = waits;
		this.readiness = readiness;
	}

	@Override
	public void itemsCancelled(List<UUID> itemIds, String reason) {
		this.readiness.adjust(this.waits.cancelOpenOfItems(itemIds)
			.stream()
			.map((cancelled) -> BlockerDelta.waits(cancelled.itemId(), -cancelled.waits()))
			.toList());
	}

}
