package dev.workgraph.chaos;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.chaos.Client.Call;
import dev.workgraph.chaos.Client.Reply;
import tools.jackson.databind.JsonNode;

/**
 * An agent worker, simulated: claims work, renews, completes, releases, decomposes into
 * small subgraphs, asks blocking and non-blocking questions, cancels — and misbehaves the
 * way real workers do: stalls past its lease and then keeps writing, replays old requests
 * with stale epochs, sends the same request twice at once, and crashes without releasing
 * (coming back under a new identity).
 *
 * <p>
 * Now and then it works as a worker of many small items does: claims a few at once and
 * completes them in one batch, sometimes with a deliberately stale entry among them.
 *
 * <p>
 * It also saves checkpoints as it works (some renewing the lease with them), fails items
 * (they come back after a back-off, until their attempts run out), releases some with
 * {@code retryAfterSeconds}, parks items on a durable wait for an event (a fresh key
 * whose event comes later, perhaps after the deadline; a key whose event already came, so
 * the wait is matched at once; or a key whose event it sends itself at the same moment),
 * and hands its lease to another simulated worker, which then carries on with it. Stale
 * checkpoints, failures, waits and handoffs are among its stale writes.
 *
 * <p>
 * A worker with a wrong clock ({@code clockSkew} non-zero) schedules its renewals by
 * comparing the lease's {@code expiresAt} with its own wall clock, as a naive client
 * would: one whose clock is behind renews too late (its leases expire under it), one
 * whose clock is ahead renews all the time. The service must not care.
 *
 * <p>
 * A write is sent with {@code stale} set only when the worker knows for certain that the
 * lease is dead or the epoch wrong, so accepting it is a violation.
 */
final class SimulatedWorker extends Actor {

	private final int index;

	private final ChaosSettings settings;

	private final Duration clockSkew;

	private int incarnation = 1;

	private Held held;

	private final PastLeases past = new PastLeases();

	SimulatedWorker(int index, long seed, Client client, World world, ChaosSettings settings, Tally tally,
			Duration clockSkew) {
		super(seed, client, world, tally, settings.leaseSeconds(), index);
		this.index = index;
		this.settings = settings;
		this.clockSkew = clockSkew;
		world.workerIs(index, workerId());
	}

	String workerId() {
		String clock = this.clockSkew.isZero() ? ""
				: "-clock" + (this.clockSkew.isNegative() ? "" : "+") + this.clockSkew.toSeconds() + "s";
		return "w" + this.index + clock + "." + this.incarnation;
	}

	@Override
	public void run() {
		while (!this.world.stopped()) {
			if (this.held == null) {
				if (!takeOverHandedLease()) {
					claim();
				}
			}
			else {
				act();
			}
		}
	}

	/**
	 * Carries on with a lease another worker handed to this one, if any (one handed to an
	 * earlier incarnation is someone else's now: left to expire).
	 */
	private boolean takeOverHandedLease() {
		for (World.Handed handed = this.world.nextHanded(this.index); handed != null; handed = this.world
			.nextHanded(this.index)) {
			if (!handed.workerId().equals(workerId())) {
				continue;
			}
			Exchange grant = handed.grant();
			this.held = new Held(grant, handed.leaseSeconds(), handed.expiresAt());
			this.tally.add("handed_leases_taken_over");
			return true;
		}
		return false;
	}

	private void claim() {
		if (this.random.nextInt(100) < 10) {
			claimBatch();
			return;
		}
		int seconds = this.pacing.leaseSeconds();
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("workerId", workerId());
		body.put("queues", queues());
		body.put("leaseSeconds", seconds);
		Reply reply = send(Call.post(workerId(), Op.CLAIM, "/claims", body));
		if (reply.status() == 201) {
			JsonNode lease = reply.body().path("lease");
			this.held = new Held(reply.exchange(), seconds, Instant.parse(lease.path("expiresAt").asString()));
			this.tally.add("claims");
		}
		else if (reply.status() == 204) {
			this.pacing.pause(50, this.world.loading() ? 400 : 150);
		}
		else {
			this.pacing.backOff();
		}
	}

	/**
	 * Claims 2–5 items at once and, after a moment's work, completes what it got in one
	 * request.
	 */
	private void claimBatch() {
		int seconds = this.pacing.leaseSeconds();
		Reply reply = send(Call.claimBatch(workerId(), queues(), seconds, 2 + this.random.nextInt(4)));
		if (reply.status() == 201) {
			List<Held> claimed = new ArrayList<>();
			for (Reply entry : reply.entries()) {
				claimed.add(new Held(entry.exchange(), seconds,
						Instant.parse(entry.body().path("lease").path("expiresAt").asString())));
			}
			this.tally.add("batch_claims");
			if (!claimed.isEmpty()) {
				this.pacing.pause(5, 100);
				completeBatch(claimed);
			}
		}
		else if (reply.status() == 204) {
			this.pacing.pause(50, this.world.loading() ? 400 : 150);
		}
		else {
			this.pacing.backOff();
		}
	}

	/**
	 * Completes the leases in one {@code POST /completions}, each entry fenced on its
	 * own. While loading, one batch in three carries a stale entry, known to be stale: a
	 * replay of a dead lease, or one of these leases with a wrong epoch. That entry alone
	 * must be refused: the others complete, and a lease refused for a wrong epoch is
	 * still this worker's, so it then completes it alone.
	 */
	private void completeBatch(List<Held> claimed) {
		List<Client.Entry> entries = new ArrayList<>();
		List<Held> leases = new ArrayList<>(claimed);
		for (Held lease : claimed) {
			entries.add(new Client.Entry(lease.leaseId, lease.itemId, lease.epoch, false,
					Map.of("by", workerId(), "lease", lease.leaseId.toString())));
		}
		if (this.world.loading() && this.random.nextInt(3) == 0) {
			PastLeases.Past old = this.past.isEmpty() ? null : this.past.any(this.random);
			// Its result names its lease, so an item it changed would show it.
			if (old != null && old.surelyDead() && this.random.nextBoolean()) {
				int at = this.random.nextInt(entries.size() + 1);
				entries.add(at, new Client.Entry(old.leaseId(), old.itemId(), old.epoch(), true,
						Map.of("stale", true, "lease", old.leaseId().toString())));
				leases.add(at, null);
			}
			else {
				int at = this.random.nextInt(entries.size());
				Held lease = claimed.get(at);
				long wrong = this.random.nextBoolean() ? lease.epoch + 1 : lease.epoch - 1;
				entries.set(at, new Client.Entry(lease.leaseId, lease.itemId, wrong, true,
						Map.of("stale", true, "lease", lease.leaseId.toString())));
			}
			this.tally.add("stale_writes_attempted");
			this.tally.add("batch_stale_entries");
		}
		Reply reply = send(Call.completions(workerId(), entries));
		if (reply.ok()) {
			this.tally.add("batch_completions");
		}
		for (int i = 0; i < entries.size(); i++) {
			if (leases.get(i) == null) {
				continue;
			}
			this.held = leases.get(i);
			Reply answer = reply.entries().isEmpty() ? reply : reply.entries().get(i);
			boolean refusedAlone = entries.get(i).stale() && "epoch_mismatch".equals(answer.code());
			if (!refusedAlone) {
				completed(answer);
			}
			// Still this worker's (refused alone, or found active after a lost answer).
			if (this.held != null) {
				complete();
			}
			if (this.held != null) {
				// Left to expire, as a crashed worker leaves it.
				this.past.remember(this.held, this.held.deadAfterNanos);
				this.held = null;
			}
		}
	}

	private List<String> queues() {
		return (this.random.nextInt(5) == 0) ? List.of(World.QUEUES.get(this.random.nextInt(World.QUEUES.size())))
				: World.QUEUES;
	}

	private void act() {
		Held lease = this.held;
		if (renewalDue(lease)) {
			renew();
			return;
		}
		if (!this.world.loading()) {
			this.pacing.pause(5, 40);
			complete();
			return;
		}
		if (this.random.nextInt(100) < 6) {
			replayStale();
		}
		lease.steps++;
		if (lease.steps < 2 || this.random.nextInt(100) < 35) {
			work();
			return;
		}
		int choice = this.random.nextInt(100);
		if (choice < 28) {
			complete();
		}
		else if (choice < 33) {
			release(this.random.nextBoolean());
		}
		else if (choice < 41) {
			decompose();
		}
		else if (choice < 45) {
			ask(true);
		}
		else if (choice < 49) {
			ask(false);
		}
		else if (choice < 51) {
			cancel();
		}
		else if (choice < 58) {
			stallThenWrite();
		}
		else if (choice < 62) {
			crash();
		}
		else if (choice < 66) {
			duplicateComplete();
		}
		else if (choice < 75) {
			fail();
		}
		else if (choice < 87) {
			waitForEvent();
		}
		else {
			handOff();
		}
	}

	/**
	 * A worker with a correct clock renews halfway through what it knows is surely left
	 * of its lease (measured on its monotonic clock from the moment it sent the request
	 * that set the expiry). A worker with a wrong clock compares {@code expiresAt} with
	 * its own wall clock.
	 */
	private boolean renewalDue(Held lease) {
		return millisUntilRenewal(lease) <= 0 && !lease.renewedJustNow();
	}

	private long millisUntilRenewal(Held lease) {
		if (this.clockSkew.isZero()) {
			return lease.millisUntilRenewal();
		}
		Instant localNow = Instant.now().plus(this.clockSkew);
		return Duration.between(localNow, lease.expiresAt).toMillis() - lease.leaseSeconds * 500L;
	}

	/**
	 * Does some work: mostly short, sometimes long; a worker wakes up to renew in time.
	 */
	private void work() {
		if (this.world.loading() && this.random.nextInt(100) < 30) {
			checkpoint();
			if (this.held == null) {
				return;
			}
		}
		long millis = (this.random.nextInt(5) == 0) ? 300 + this.random.nextInt(1700) : 20 + this.random.nextInt(230);
		long untilRenewal = millisUntilRenewal(this.held);
		Pacing.pauseMillis(Math.max(0, Math.min(millis, untilRenewal)));
	}

	private void renew() {
		Held lease = this.held;
		int seconds = this.pacing.leaseSeconds();
		Reply reply = send(leaseCall(Op.RENEW, "renew", Map.of("epoch", lease.epoch, "leaseSeconds", seconds)));
		if (reply.status() == 200) {
			lease.granted(reply.exchange(), seconds, Instant.parse(reply.body().path("expiresAt").asString()));
		}
		else if (reply.exchange().staleRejection()) {
			lost();
		}
		else {
			lease.mayHaveBeenRenewed(reply.exchange(), seconds);
			this.pacing.backOff();
		}
	}

	private void complete() {
		completed(send(completion()));
	}

	/** Its result names its lease, so an item it changed would show it. */
	private Call completion() {
		Held lease = this.held;
		return leaseCall(Op.COMPLETE, "complete",
				Map.of("epoch", lease.epoch, "result", Map.of("by", workerId(), "lease", lease.leaseId.toString())));
	}

	private void completed(Reply reply) {
		if (reply.ok()) {
			ended();
		}
		else if (reply.releaseInstead()) {
			release();
		}
		else {
			settle(reply, null);
		}
	}

	private void release() {
		release(false);
	}

	/** Gives the item back, {@code later}: not to be claimed again for a second. */
	private void release(boolean later) {
		Held lease = this.held;
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("epoch", lease.epoch);
		body.put("reason", "giving it back");
		if (later) {
			body.put("retryAfterSeconds", 1);
			this.tally.add("releases_for_later");
		}
		Reply reply = send(leaseCall(Op.RELEASE, "release", body));
		if (reply.status() == 200) {
			ended();
		}
		else {
			settle(reply, null);
		}
	}

	/**
	 * Saves progress under the lease, half the time renewing it in the same request
	 * (then, as for a renewal, an unknown outcome leaves the lease's life uncertain).
	 */
	private void checkpoint() {
		Held lease = this.held;
		lease.checkpoints++;
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("epoch", lease.epoch);
		body.put("data", Map.of("by", workerId(), "lease", lease.leaseId.toString(), "n", lease.checkpoints));
		int renew = this.random.nextBoolean() ? this.pacing.leaseSeconds() : 0;
		if (renew > 0) {
			body.put("renewSeconds", renew);
		}
		Reply reply = send(leaseCall(Op.CHECKPOINT, "checkpoints", body));
		if (reply.status() == 201) {
			this.tally.add("checkpoints");
			if (renew > 0) {
				lease.granted(reply.exchange(), renew,
						Instant.parse(reply.body().path("lease").path("expiresAt").asString()));
			}
		}
		else if (reply.exchange().staleRejection()) {
			lost();
		}
		else if (reply.unavailable() && renew > 0) {
			lease.mayHaveBeenRenewed(reply.exchange(), renew);
			this.pacing.backOff();
		}
	}

	/** Could not do it: the item counts an attempt and comes back after its back-off. */
	private void fail() {
		Held lease = this.held;
		Reply reply = send(leaseCall(Op.FAIL, "fail", Map.of("epoch", lease.epoch, "error",
				Map.of("message", "upstream answered 503", "status", 503), "reason", "simulated failure")));
		if (reply.ok()) {
			this.tally.add("failures");
			ended();
		}
		else {
			settle(reply, null);
		}
	}

	/**
	 * Parks the item on an event: a key whose event already came (matched at once), a
	 * fresh key whose event the signaller sends later (with a deadline of 1–3 s, or
	 * none), or a fresh key whose event this worker sends at the same moment (no
	 * deadline: the wait must end matched whichever commits first).
	 */
	private void waitForEvent() {
		Held lease = this.held;
		String key = (this.random.nextInt(100) < 30) ? this.world.anySignalled(this.random) : null;
		boolean fresh = key == null;
		boolean race = fresh && this.random.nextInt(100) < 25;
		if (fresh) {
			key = this.world.token("e");
		}
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("epoch", lease.epoch);
		body.put("event", Map.of("name", World.EVENT_NAME, "key", key));
		if (!race && (!fresh || this.random.nextInt(3) > 0)) {
			body.put("timeoutSeconds", 1 + this.random.nextInt(3));
			int onTimeout = this.random.nextInt(100);
			body.put("onTimeout", (onTimeout < 60) ? "ready" : (onTimeout < 85) ? "ask" : "cancel");
		}
		Call call = leaseCall(Op.WAIT, "waits", body).token(key);
		Reply reply;
		if (race) {
			this.tally.add("waits_raced_by_their_event");
			String id = this.world.eventId(key);
			this.world.signalled(key);
			Reply[] sent = new Reply[1];
			Thread event = Thread.ofVirtual()
				.start(() -> sent[0] = Signaller.send(this.client, this.world, id, this.pacing.instance() + 1));
			reply = send(call);
			try {
				event.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			if (sent[0] == null || !sent[0].ok()) {
				// The event may not have arrived: the signaller sends it again.
				this.world.awaited(key);
			}
		}
		else {
			reply = send(call);
		}
		if (fresh && !race && (reply.ok() || reply.unavailable())) {
			// Its event is due (a wait without a deadline ends only with it).
			this.world.awaited(key);
		}
		if (reply.ok()) {
			this.tally.add("waits");
			ended();
		}
		else {
			settle(reply, null);
		}
	}

	/**
	 * Hands the lease to another simulated worker as it is now; that worker carries on
	 * with it once it is free (or, if it crashed meanwhile, the lease expires).
	 */
	private void handOff() {
		Map.Entry<Integer, String> successor = this.world.anotherWorker(this.index, this.random);
		if (successor == null) {
			complete();
			return;
		}
		Held lease = this.held;
		int seconds = this.settings.leaseSeconds().getLast();
		Reply reply = send(
				Call.handoff(workerId(), lease.leaseId, lease.itemId, lease.epoch, successor.getValue(), seconds));
		if (reply.status() == 201) {
			this.world.handedOff(successor.getKey(),
					new World.Handed(successor.getValue(), reply.entries().getFirst().exchange(), seconds,
							Instant.parse(reply.body().path("lease").path("expiresAt").asString())));
			this.tally.add("handoffs");
			ended();
		}
		else {
			settle(reply, null);
		}
	}

	private void cancel() {
		Held lease = this.held;
		Reply reply = send(
				leaseCall(Op.CANCEL_LEASE, "cancel", Map.of("epoch", lease.epoch, "reason", "cannot be done")));
		if (reply.status() == 200) {
			ended();
		}
		else {
			settle(reply, null);
		}
	}

	private void ask(boolean blocking) {
		Held lease = this.held;
		Map<String, Object> body = Map.of("epoch", lease.epoch, "question",
				blocking ? "Which database should this use?" : "FYI: this is taking longer than planned", "blocking",
				blocking, "context", Map.of("worker", workerId()));
		Reply reply = send(leaseCall(blocking ? Op.ASK_BLOCKING : Op.ASK_NON_BLOCKING, "attention-requests", body));
		if (reply.status() == 201) {
			if (blocking) {
				ended();
			}
		}
		else if (blocking || reply.exchange().staleRejection()) {
			settle(reply, null);
		}
	}

	/** 1–4 children, some depending on earlier siblings, a few on existing items. */
	private void decompose() {
		if (this.world.openItems() >= this.settings.maxOpenItems()) {
			complete();
			return;
		}
		Held lease = this.held;
		String token = this.world.token("d");
		int count = 1 + this.random.nextInt(4);
		List<Map<String, Object>> children = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			Map<String, Object> child = new LinkedHashMap<>();
			child.put("key", "k" + i);
			child.put("title", token + "/k" + i);
			List<String> dependsOn = new ArrayList<>();
			for (int j = 0; j < i; j++) {
				if (this.random.nextInt(100) < 35) {
					dependsOn.add("k" + j);
				}
			}
			UUID existing = this.world.anyItem(this.random);
			if (existing != null && this.random.nextInt(100) < 12) {
				dependsOn.add(existing.toString());
			}
			if (!dependsOn.isEmpty()) {
				child.put("dependsOn", dependsOn);
			}
			if (this.random.nextInt(100) < 30) {
				child.put("priority", this.random.nextInt(11) - 5);
			}
			if (this.random.nextInt(100) < 30) {
				child.put("queue", World.QUEUES.get(this.random.nextInt(World.QUEUES.size())));
			}
			children.add(child);
		}
		Reply reply = send(leaseCall(Op.DECOMPOSE, "decompose",
				Map.of("epoch", lease.epoch, "children", children, "reason", "split up"))
			.token(token));
		if (reply.status() == 201) {
			for (JsonNode child : reply.body().path("children")) {
				this.world.created(Client.uuid(child.path("id")), child.path("title").asString());
			}
			this.tally.add("decompositions");
			ended();
		}
		else if ("dependency_cycle".equals(reply.code())) {
			this.tally.add("decompositions_refused_as_cycles");
			complete();
		}
		else {
			if (reply.unavailable()) {
				this.world.outcomeUnknown(token);
			}
			settle(reply, token);
		}
	}

	/**
	 * Stalls until the lease is certainly dead (its expiry, measured from the moment the
	 * answer that set it arrived), then writes as if nothing happened: first just past
	 * the expiry, before the reaper has recorded it (the lease is dead at expiresAt
	 * whether or not anything has noticed), then sometimes again a little later. Both
	 * clocks are the machine's: PostgreSQL set the expiry no later than that moment.
	 */
	private void stallThenWrite() {
		Held lease = this.held;
		if (lease.uncertain) {
			work();
			return;
		}
		this.tally.add("stalls_past_lease");
		Pacing.pauseMillis((lease.deadAfterNanos - System.nanoTime()) / 1_000_000 + 1 + this.random.nextInt(150));
		staleWrite(lease);
		if (this.random.nextBoolean()) {
			this.pacing.pause(200, 1500);
			staleWrite(lease);
		}
		ended();
	}

	private void staleWrite(Held lease) {
		Call write = switch (this.random.nextInt(9)) {
			case 5 ->
				leaseCall(Op.CHECKPOINT, "checkpoints", Map.of("epoch", lease.epoch, "data", Map.of("late", true)));
			case 6 -> leaseCall(Op.FAIL, "fail", Map.of("epoch", lease.epoch, "error", Map.of("late", true)));
			case 7 -> leaseCall(Op.WAIT, "waits",
					Map.of("epoch", lease.epoch, "event", Map.of("name", World.EVENT_NAME, "key", "late")))
				.token("late");
			case 8 -> Call.handoff(workerId(), lease.leaseId, lease.itemId, lease.epoch, workerId(), 2);
			case 0 -> leaseCall(Op.RENEW, "renew", Map.of("epoch", lease.epoch));
			case 1 -> leaseCall(Op.RELEASE, "release", Map.of("epoch", lease.epoch));
			case 2 -> leaseCall(Op.ASK_NON_BLOCKING, "attention-requests",
					Map.of("epoch", lease.epoch, "question", "still there?", "blocking", false));
			case 3 -> leaseCall(Op.DECOMPOSE, "decompose", Map.of("epoch", lease.epoch, "children",
					List.of(Map.of("key", "late", "title", this.world.token("late") + "/late"))));
			default -> leaseCall(Op.COMPLETE, "complete", Map.of("epoch", lease.epoch, "result", Map.of("late", true)));
		};
		this.tally.add("stale_writes_attempted");
		send(write.stale(true));
	}

	/**
	 * Vanishes without a word; the lease is left to expire. Comes back as someone new.
	 */
	private void crash() {
		this.tally.add("crashes");
		Held lease = this.held;
		this.past.remember(lease, lease.uncertain ? Long.MAX_VALUE : lease.deadAfterNanos);
		this.held = null;
		this.incarnation++;
		this.world.workerIs(this.index, workerId());
		this.pacing.pause(100, 800);
	}

	/** The same completion sent twice at once: exactly one may succeed. */
	private void duplicateComplete() {
		this.tally.add("duplicate_requests");
		Reply[] replies = new Reply[2];
		Thread first = Thread.ofVirtual().start(() -> replies[0] = send(completion()));
		Thread second = Thread.ofVirtual().start(() -> replies[1] = send(completion()));
		try {
			first.join();
			second.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return;
		}
		completed(Reply.decisive(replies[0], replies[1]));
	}

	/**
	 * Replays a request from the past: a lease known to be dead, or the current lease
	 * with the wrong epoch.
	 */
	private void replayStale() {
		Call call;
		if (!this.past.isEmpty() && this.random.nextBoolean()) {
			PastLeases.Past old = this.past.any(this.random);
			if (!old.surelyDead()) {
				return;
			}
			call = staleCall(old.leaseId(), old.itemId(), old.epoch(), old.epoch());
		}
		else {
			Held lease = this.held;
			long wrong = this.random.nextBoolean() ? lease.epoch + 1 : lease.epoch - 1;
			call = staleCall(lease.leaseId, lease.itemId, lease.epoch, wrong);
		}
		this.tally.add("stale_writes_attempted");
		this.tally.add("stale_replays");
		send(call.stale(true));
	}

	private Call staleCall(UUID leaseId, UUID itemId, long leaseEpoch, long presented) {
		String base = "/leases/" + leaseId + "/";
		Call call = switch (this.random.nextInt(9)) {
			case 5 -> Call.post(workerId(), Op.CHECKPOINT, base + "checkpoints",
					Map.of("epoch", presented, "data", Map.of("replayed", true)));
			case 6 -> Call.post(workerId(), Op.FAIL, base + "fail",
					Map.of("epoch", presented, "error", Map.of("replayed", true)));
			case 7 -> Call
				.post(workerId(), Op.WAIT, base + "waits",
						Map.of("epoch", presented, "event", Map.of("name", World.EVENT_NAME, "key", "replayed")))
				.token("replayed");
			case 8 -> Call.handoff(workerId(), leaseId, itemId, presented, workerId(), 2);
			case 0 -> Call.post(workerId(), Op.RENEW, base + "renew", Map.of("epoch", presented));
			case 1 -> Call.post(workerId(), Op.RELEASE, base + "release", Map.of("epoch", presented));
			case 2 -> Call.post(workerId(), Op.CANCEL_LEASE, base + "cancel", Map.of("epoch", presented));
			case 3 -> Call.post(workerId(), Op.ASK_BLOCKING, base + "attention-requests",
					Map.of("epoch", presented, "question", "replayed question"));
			default -> Call.post(workerId(), Op.COMPLETE, base + "complete",
					Map.of("epoch", presented, "result", Map.of("replayed", true)));
		};
		call.epoch = presented;
		call.leaseId = leaseId;
		return call.item(itemId);
	}

	/**
	 * After an answer that was neither success nor a clean rejection: a stale lease is
	 * lost; an unknown outcome is settled by reading the lease; anything else leaves the
	 * lease as it was.
	 */
	private void settle(Reply reply, String token) {
		if (reply.exchange().staleRejection()) {
			lost();
			return;
		}
		if (!reply.unavailable()) {
			return;
		}
		Held lease = this.held;
		for (int attempt = 0; attempt < 40 && !this.world.stopped(); attempt++) {
			this.pacing.backOff();
			Reply read = send(Call.get(workerId(), Op.READ, "/leases/" + lease.leaseId).item(lease.itemId));
			if (read.status() == 200) {
				if (read.body().path("active").asBoolean()) {
					return;
				}
				if (token != null && "decomposed".equals(read.body().path("outcome").asString(null))) {
					recoverChildren(lease.itemId, token);
				}
				ended();
				return;
			}
		}
		this.past.remember(lease, Long.MAX_VALUE);
		this.held = null;
	}

	/** A decompose whose answer was lost did happen: find its children by their token. */
	private void recoverChildren(UUID parent, String token) {
		String cursor = null;
		do {
			// Listing items is an operator's read (a worker token may not list): the
			// harness looks, on the worker's behalf, with the admin token.
			Reply page = this.client.send(Call
				.get(workerId(), Op.READ,
						"/items?parentId=" + parent + "&limit=500" + ((cursor != null) ? "&cursor=" + cursor : ""))
				.via(this.pacing.instance()));
			if (page.status() != 200) {
				return;
			}
			for (JsonNode item : page.body().path("items")) {
				String title = item.path("title").asString();
				if (title.startsWith(token + "/")) {
					this.world.created(Client.uuid(item.path("id")), title);
				}
			}
			cursor = page.body().path("nextCursor").asString(null);
		}
		while (cursor != null);
	}

	private void ended() {
		this.past.remember(this.held, System.nanoTime());
		this.held = null;
	}

	private void lost() {
		this.tally.add("leases_lost");
		ended();
	}

	private Call leaseCall(Op op, String action, Map<String, Object> body) {
		Held lease = this.held;
		return Call.post(workerId(), op, "/leases/" + lease.leaseId + "/" + action, body)
			.lease(lease.leaseId, lease.epoch)
			.item(lease.itemId);
	}

	/** As this worker, with its own worker token. */
	private Reply send(Call call) {
		return this.client.send(call.via(this.pacing.instance()).asWorker());
	}

}
