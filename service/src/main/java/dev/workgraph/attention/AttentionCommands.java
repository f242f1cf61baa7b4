package dev.workgraph.attention;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.CancellationParticipant;
import dev.workgraph.item.Readiness;
import dev.workgraph.lease.Fencing;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.sql.Transactions;
import dev.workgraph.sql.Uuid7;

import org.springframework.stereotype.Service;

/**
 * Asking and answering. A blocking question ends the asker's lease with outcome
 * {@code attention_requested} and holds the item until every blocking question is
 * answered; then readiness follows the normal predicate, and the asker is preferred when
 * the item is claimed next (see {@code Claims}). A non-blocking question is recorded
 * while the lease carries on.
 */
@Service
class AttentionCommands implements CancellationParticipant {

	private final Transactions transactions;

	private final AttentionRequests requests;

	private final Fencing fencing;

	private final Readiness readiness;

	AttentionCommands(Transactions transactions, AttentionRequests requests, Fencing fencing, Readiness readiness) {
		this.transactions = transactions;
		this.requests = requests;
		this.fencing = fencing;
		this.readiness = readiness;
	}

	UUID raise(UUID leaseId, long epoch, String question, boolean blocking, String context, Deadline deadline) {
		return this.transactions.inTransaction(() -> {
			UUID itemId = this.fencing.lockItem(leaseId, epoch).id();
			UUID id = this.requests
				.insertIfLeaseCurrent(Uuid7.next(), leaseId, epoch, blocking, question, context, deadline)
				.orElseThrow(() -> this.fencing.rejection(leaseId, epoch));
			if (blocking) {
				this.fencing.end(leaseId, epoch, LeaseOutcome.ATTENTION_REQUESTED, null);
				this.readiness.adjust(List.of(BlockerDelta.attentionRequests(itemId, +1)), List.of(itemId));
			}
			return id;
		});
	}

	/**
	 * Records the answer; once the item's last blocking question is answered it may
	 * become ready.
	 */
	void resolve(UUID id, String resolution, String resolvedBy) {
		this.transactions.inTransaction(() -> {
			AttentionRequests.ItemAndResolver request = this.requests.itemAndResolver(id)
				.orElseThrow(() -> new AttentionRequestNotFound(id));
			// The item first: resolving adjusts its counters, and item rows are always
			// locked first.
			this.readiness.lockItem(request.itemId());
			AttentionRequests.Resolved resolved = this.requests.resolveIfOpen(id, resolution, resolvedBy)
				.orElseThrow(
						() -> new AlreadyResolved(id, this.requests.itemAndResolver(id).orElseThrow().resolvedBy()));
			if (resolved.blocking()) {
				this.readiness.adjust(BlockerDelta.attentionRequests(resolved.itemId(), -1));
			}
		});
	}

	/**
	 * Cancelling an item (docs/http-api.md, "Cancelling") resolves its open attention
	 * requests on the system's behalf.
	 */
	@Override
	public void itemsCancelled(List<UUID> itemIds, String reason) {
		String resolution = "The item was cancelled" + ((reason != null) ? ": " + reason : ".");
		List<BlockerDelta> deltas = new ArrayList<>();
		for (AttentionRequests.BlockingResolved resolved : this.requests.resolveOpenOfItems(itemIds, resolution)) {
			if (resolved.blocking() > 0) {
				deltas.add(BlockerDelta.attentionRequests(resolved.itemId(), -resolved.blocking()));
			}
		}
		this.readiness.adjust(deltas);
	}

}
