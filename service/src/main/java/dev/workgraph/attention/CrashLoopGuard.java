package dev.workgraph.attention;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.workgraph.item.BlockerDelta;
import dev.workgraph.lease.LeaseProperties;
import dev.workgraph.lease.expiry.ExpiredLease;
import dev.workgraph.lease.expiry.ExpiryListener;
import dev.workgraph.metrics.AfterCommit;
import dev.workgraph.sql.Uuid7;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.stereotype.Component;

/**
 * The crash-loop guard (docs/http-api.md, "Crash-loop guard"): when an item's leases have
 * expired {@code workgraph.lease.max-consecutive-expirations} times in a row, the reaper
 * does not return it to circulation but holds it with a blocking attention request raised
 * by the system, naming the workers and times, so that a poison item cannot take down
 * worker after worker. Resolving that request restarts the count and (blockers
 * permitting) makes the item ready.
 *
 * <p>
 * Runs in the reaper's transaction with the item rows locked, so two reapers can never
 * both open a request for the same expiry.
 */
@Component
class CrashLoopGuard implements ExpiryListener {

	private final AttentionRequests requests;

	private final JsonMapper json;

	private final int threshold;

	/** {@code workgraph_crash_loop_holds_total}: items held, counted once committed. */
	private final Counter holds;

	CrashLoopGuard(AttentionRequests requests, JsonMapper json, LeaseProperties properties, MeterRegistry registry) {
		this.requests = requests;
		this.json = json;
		this.threshold = properties.maxConsecutiveExpirations();
		this.holds = Counter.builder("workgraph.crash.loop.holds")
			.description("Items held by the crash-loop guard after too many lease expiries in a row")
			.register(registry);
	}

	@Override
	public List<BlockerDelta> leasesExpired(List<ExpiredLease> expired) {
		List<ExpiredLease> looping = expired.stream()
			.filter((lease) -> lease.consecutiveExpirations() >= this.threshold)
			.toList();
		if (looping.isEmpty()) {
			return List.of();
		}
		Map<UUID, List<AttentionRequests.RecentLease>> recent = this.requests
			.recentLeasesOf(looping.stream().map(ExpiredLease::itemId).toList(), this.threshold)
			.stream()
			.collect(Collectors.groupingBy(AttentionRequests.RecentLease::itemId));
		List<BlockerDelta> held = new ArrayList<>();
		for (ExpiredLease lease : looping) {
			List<AttentionRequests.RecentLease> leases = recent.getOrDefault(lease.itemId(), List.of());
			this.requests.insertSystemRequest(Uuid7.next(), lease.itemId(), lease.leaseId(), lease.epoch(),
					"crash_loop", question(lease, leases), context(lease, leases));
			held.add(BlockerDelta.attentionRequests(lease.itemId(), +1));
		}
		AfterCommit.run(() -> this.holds.increment(held.size()));
		return held;
	}

	private static String question(ExpiredLease lease, List<AttentionRequests.RecentLease> leases) {
		String who = leases.stream()
			.map((recent) -> recent.workerId() + " (epoch " + recent.epoch() + ", expired " + recent.endedAt() + ")")
			.collect(Collectors.joining(", "));
		return "The last " + lease.consecutiveExpirations() + " leases of this item expired without the worker "
				+ "finishing: " + who + ". The item is held so that it cannot take down more workers. Check whether "
				+ "it can be done as written (or change it), then resolve this request to return it to circulation.";
	}

	private String context(ExpiredLease lease, List<AttentionRequests.RecentLease> leases) {
		ObjectNode context = this.json.createObjectNode();
		context.put("reason", "crash_loop");
		context.put("consecutiveExpirations", lease.consecutiveExpirations());
		ArrayNode expiredLeases = context.putArray("expiredLeases");
		for (AttentionRequests.RecentLease recent : leases) {
			expiredLeases.addObject()
				.put("leaseId", recent.leaseId().toString())
				.put("workerId", recent.workerId())
				.put("epoch", recent.epoch())
				.put("acquiredAt", recent.acquiredAt().toString())
				.put("expiredAt", recent.endedAt().toString());
		}
		return context.toString();
	}

}
