package dev.workgraph.client;

import java.util.List;

/**
 * One page of attention requests, newest first; {@link #nextCursor()} is null on the last
 * page.
 */
public record AttentionRequestPage(List<AttentionRequest> attentionRequests, String nextCursor) {

	public AttentionRequestPage {
		attentionRequests = (attentionRequests != null) ? List.copyOf(attentionRequests) : List.of();
	}

}
