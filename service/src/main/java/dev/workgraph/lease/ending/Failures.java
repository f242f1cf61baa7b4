package dev.workgraph.lease.ending;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import dev.workgraph.lease.Fencing;
import dev.workgraph.lease.LeaseAndItem;
import dev.workgraph.lease.LeaseHistory;
import dev.workgraph.lease.LeaseMetrics;
import dev.workgraph.lease.ProgressGuard;
import dev.workgraph.lease.SystemHolds;
import dev.workgraph.validation.Json;
import dev.workgraph.item.BlockerDelta;
import dev.workgraph.item.NotBefore;
import dev.workgraph.item.Readiness;
import dev.workgraph.model.RetryPolicy;
import dev.workgraph.item.RetryProperties;
import dev.workgraph.model.LeaseOutcome;
import dev.workgraph.view.LeaseRows;
import dev.workgraph.view.LeaseView;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.sql.Transactions;
import dev.workgraph.view.ItemViews;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * {@code POST /leases/{id}/fail} (docs/http-api.md, "Failures and retries"): ends the
 * lease with outcome {@code failed} and its error, counts an attempt, and either returns
 * the item to circulation after its back-off or, when its attempts are used up or the
 * worker said another would not help, holds it with a blocking system request of kind
 * {@code retries_exhausted} for a human to decide. One transaction, fenced like every
 * lease mutation: a refused failure writes nothing.
 */
@Repository
class Failures {

	/**
	 * Under the item's lock: ends the lease if current, with its error, and counts the
	 * attempt (a failure also ends the item's run of expiries).
	 */
	static final String FAIL_IF_CURRENT = """
			with %s, counted as (
			    update work_items w
			    set attempts = w.attempts + 1, consecutive_expirations = 0, updated_at = now()
			    from recorded h
			    where w.id = h.item_id
			    returning w.id, w.attempts, w.retry
			)
			select %s, c.attempts, c.retry::text as retry
			from recorded h join counted c on c.id = h.item_id
			""".formatted(LeaseHistory.endAndRecord("where " + Fencing.LEASE_IS_CURRENT, "now()", "'failed'", ":reason",
			":error::jsonb"), LeaseRows.ENDED);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final JdbcClient jdbc;

	private final Transactions transactions;

	private final Fencing fencing;

	private final Readiness readiness;

	private final SystemHolds holds;

	private final RetryProperties retry;

	private final ItemViews items;

	private final LeaseMetrics metrics;

	private final ProgressGuard progress;

	Failures(JdbcClient jdbc, Transactions transactions, Fencing fencing, Readiness readiness, SystemHolds holds,
			RetryProperties retry, ItemViews items, LeaseMetrics metrics, ProgressGuard progress) {
		this.progress = progress;
		this.jdbc = jdbc;
		this.transactions = transactions;
		this.fencing = fencing;
		this.readiness = readiness;
		this.holds = holds;
		this.retry = retry;
		this.items = items;
		this.metrics = metrics;
	}

	LeaseAndItem fail(UUID leaseId, long epoch, FailRequest request) {
		if (request.error() == null || request.error().isNull()) {
			throw new InvalidRequest("error", "must be a JSON object");
		}
		boolean retryable = request.retryable() == null || request.retryable();
		LeaseView failed = this.transactions.inTransaction(() -> {
			this.fencing.lockItem(leaseId, epoch);
			Counted counted = this.jdbc.sql(FAIL_IF_CURRENT)
				.param("leaseId", leaseId)
				.param("epoch", epoch)
				.param("reason", request.reason())
				.param("error", Json.objectText(request.error()))
				.query((rs, n) -> new Counted(LeaseRows.map(rs, n), rs.getInt("attempts"), rs.getString("retry")))
				.optional()
				.orElseThrow(() -> this.fencing.rejection(leaseId, epoch));
			UUID itemId = counted.lease().itemId();
			RetryPolicy policy = RetryPolicy.of(counted.retry(), this.retry.policy());
			if (!retryable || counted.attempts() >= policy.maxAttempts()) {
				this.holds.open(itemId, leaseId, epoch, "retries_exhausted", question(counted, policy, retryable),
						context(counted, policy, retryable, request.error()));
				this.readiness.adjust(List.of(BlockerDelta.attentionRequests(itemId, +1)), List.of(itemId));
			}
			else {
				// Attempts left: back to circulation after the back-off (with jitter),
				// unless its leases have stopped making progress.
				List<BlockerDelta> held = this.progress.holdStalled(List.of(itemId));
				this.readiness.settleAfterLeaseEnded(held, List.of(itemId),
						held.isEmpty()
								? List.of(NotBefore.after(itemId,
										policy.backoff(counted.attempts(), ThreadLocalRandom.current().nextDouble())))
								: List.of());
			}
			return counted.lease();
		});
		this.metrics.ended(LeaseOutcome.FAILED, 1);
		return new LeaseAndItem(failed, this.items.find(failed.itemId()).orElseThrow());
	}

	private static String question(Counted counted, RetryPolicy policy, boolean retryable) {
		String what = retryable
				? "This item has used up its " + policy.maxAttempts() + " attempts (leases that failed or expired)"
				: "The worker said another attempt at this item would not help";
		return what + ": the last, by worker " + counted.lease().workerId() + " (epoch " + counted.lease().epoch()
				+ "), failed with the error in this request's context. The item is held instead of being retried. "
				+ "Fix what it needs, then resolve this request to let it run again with its attempts reset to 0; "
				+ "or cancel the item.";
	}

	private static String context(Counted counted, RetryPolicy policy, boolean retryable, JsonNode error) {
		ObjectNode context = JSON.createObjectNode();
		context.put("kind", "retries_exhausted");
		context.put("attempts", counted.attempts());
		context.put("maxAttempts", policy.maxAttempts());
		context.put("retryable", retryable);
		context.put("leaseId", counted.lease().id().toString());
		context.put("workerId", counted.lease().workerId());
		context.set("error", error);
		return Json.objectText(context);
	}

	private record Counted(LeaseView lease, int attempts, String retry) {
	}

}
