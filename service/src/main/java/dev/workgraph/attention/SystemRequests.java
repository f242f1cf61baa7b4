package dev.workgraph.attention;

import java.util.UUID;

import dev.workgraph.lease.SystemHolds;
import dev.workgraph.sql.Uuid7;

import org.springframework.stereotype.Component;

/** The attention requests that hold items for the lease feature's guards. */
@Component
class SystemRequests implements SystemHolds {

	private final AttentionRequests requests;

	SystemRequests(AttentionRequests requests) {
		this.requests = requests;
	}

	@Override
	public void open(UUID itemId, UUID leaseId, long epoch, String kind, String question, String context) {
		this.requests.insertSystemRequest(Uuid7.next(), itemId, leaseId, epoch, kind, question, context);
	}

}
