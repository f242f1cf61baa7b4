package dev.workgraph.attention;

import java.util.ArrayList;
import java.util.List;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.model.RetryPolicy;
import dev.workgraph.item.RetryProperties;
import dev.workgraph.lease.expiry.ExpiredLease;
import dev.workgraph.lease.expiry.ExpiryListener;
import dev.workgraph.lease.LeaseProperties;
import dev.workgraph.sql.Uuid7;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.stereotype.Component;

/**
 * An expiry is an attempt as a failure is (docs/http-api.md, "Failures and retries"):
 * when the expiry the reaper has just recorded used up the item's last attempt, the item
 * is held with a blocking system request of kind {@code retries_exhausted}, as a failure
 * would hold it. Where the crash-loop guard holds the item for the same expiry, its
 * request says enough and none is added.
 */
@Component
class RetriesExhaustedGuard implements ExpiryListener {

	private final AttentionRequests requests;

	private final JsonMapper json;

	private final RetryPolicy defaults;

	private final int crashLoopThreshold;

	RetriesExhaustedGuard(AttentionRequests requests, JsonMapper json, RetryProperties retry,
			LeaseProperties properties) {
		this.requests = requests;
		this.json = json;
		this.defaults = retry.policy();
		this.crashLoopThreshold = properties.maxConsecutiveExpirations();
	}

	@Override
	public List<BlockerDelta> leasesExpired(List<ExpiredLease> expired) {
		List<BlockerDelta> held = new ArrayList<>();
		for (ExpiredLease lease : expired) {
			int maxAttempts = RetryPolicy.of(lease.retry(), this.defaults).maxAttempts();
			if (lease.attempts() < maxAttempts || lease.consecutiveExpirations() >= this.crashLoopThreshold) {
				continue;
			}
			ObjectNode context = this.json.createObjectNode();
			context.put("kind", "retries_exhausted");
			context.put("attempts", lease.attempts());
			context.put("maxAttempts", maxAttempts);
			context.put("leaseId", lease.leaseId().toString());
			context.put("outcome", "expired");
			this.requests.insertSystemRequest(Uuid7.next(), lease.itemId(), lease.leaseId(), lease.epoch(),
					"retries_exhausted",
					"This item has used up its " + maxAttempts + " attempts (leases that failed or expired): the "
							+ "last, epoch " + lease.epoch() + ", expired before its holder finished. The item is "
							+ "held instead of being retried. Fix what it needs, then resolve this request to let "
							+ "it run again with its attempts reset to 0; or cancel the item.",
					context.toString());
			held.add(BlockerDelta.attentionRequests(lease.itemId(), +1));
		}
		return held;
	}

}
