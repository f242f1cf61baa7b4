package dev.workgraph.lease.ending;

import java.util.UUID;

import dev.workgraph.lease.Fencing;
import dev.workgraph.lease.LeaseHolders;
import dev.workgraph.lease.LeaseProperties;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.view.LeaseView;
import dev.workgraph.sql.LogContext;
import dev.workgraph.sql.Transactions;
import dev.workgraph.sql.Uuid7;
import dev.workgraph.view.ItemView;

import org.springframework.stereotype.Service;

/**
 * Handoff: the holder ends its lease ({@code handed_off}) and the item is leased to the
 * named successor with epoch + 1, in one transaction. The item stays locked and
 * {@code leased} throughout: it is never in the claim queue, so no claim can take it in
 * between, and the reaper, which skips locked items, cannot record an expiry of the ended
 * lease either. The successor's lease is an ordinary one.
 */
@Service
class Handoffs {

	private final LeaseCommands leases;

	private final Fencing fencing;

	private final Transactions transactions;

	private final Successors successors;

	private final LeaseHolders holders;

	private final LeaseProperties properties;

	Handoffs(LeaseCommands leases, Fencing fencing, Transactions transactions, Successors successors,
			LeaseHolders holders, LeaseProperties properties) {
		this.leases = leases;
		this.fencing = fencing;
		this.transactions = transactions;
		this.successors = successors;
		this.holders = holders;
		this.properties = properties;
	}

	/**
	 * Ends the lease if it is current and leases its item to {@code toWorkerId}; throws
	 * the rejection, having written nothing, when the lease is not current.
	 */
	HandedOff handOff(UUID leaseId, long epoch, String toWorkerId, String reason, Long leaseSeconds) {
		int seconds = this.properties.leaseSeconds(leaseSeconds);
		UUID successorLeaseId = Uuid7.next();
		Succession succession = this.transactions.inTransaction(() -> {
			LeaseView ended = this.fencing.lockAndEnd(leaseId, epoch, LeaseOutcome.HANDED_OFF, reason);
			LeaseView granted = this.successors.grant(ended.itemId(), successorLeaseId, toWorkerId, seconds);
			return new Succession(ended, granted);
		});
		this.holders.ended(leaseId);
		this.holders.granted(successorLeaseId, toWorkerId);
		LogContext.lease(successorLeaseId);
		ItemView item = this.leases.item(succession.lease().itemId());
		return new HandedOff(succession.ended(), succession.lease(), item);
	}

	private record Succession(LeaseView ended, LeaseView lease) {
	}

	/**
	 * The answer of {@code POST /leases/{id}/handoff}: the lease that ended, the
	 * successor's lease, and the item.
	 */
	record HandedOff(LeaseView ended, LeaseView lease, ItemView item) {
	}

}
