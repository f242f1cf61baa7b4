package dev.workgraph.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.chaos.Client.Call;
import dev.workgraph.chaos.Client.Reply;
import dev.workgraph.chaos.StreamConnection.Write;

/**
 * A worker process on the worker stream (docs/worker-stream.md), simulated: one
 * WebSocket, a few leases pushed to it as its credits allow, held at once and each
 * renewed, checkpointed, completed (sometimes with the next claim folded in), released or
 * failed over the stream — and misbehaving the way real ones do: it cuts its connection
 * in the middle of a message, or drops it abruptly while holding leases, and connects
 * again (to the other instance, keeping its leases: they are the worker's, not the
 * connection's); it replays writes with epochs it knows are dead; it sends the same
 * completion twice at once; it stalls past its leases; it crashes and comes back as
 * someone new. Everything it sends and receives is recorded in the run's {@link History}
 * like an HTTP worker's requests ({@link StreamConnection}), so the
 * {@link HistoryChecker} judges both alike.
 *
 * <p>
 * As {@link SimulatedWorker}, a write is marked {@code stale} only when the worker knows
 * for certain that the lease is dead or the epoch wrong, so accepting it is a violation.
 */
final class StreamWorker extends Actor {

	private final int index;

	private final History history;

	private final List<ServiceInstance> instances;

	private final ChaosSettings settings;

	/** How many leases it holds at once (its handler slots). */
	private final int capacity;

	private int incarnation = 1;

	private StreamConnection stream;

	private int leaseSeconds;

	private List<String> queues;

	private final List<Held> held = new ArrayList<>();

	private final PastLeases past = new PastLeases();

	StreamWorker(int index, long seed, Client client, History history, List<ServiceInstance> instances, World world,
			ChaosSettings settings, Tally tally) {
		super(seed, client, world, tally, settings.leaseSeconds(), index);
		this.index = index;
		this.history = history;
		this.instances = instances;
		this.settings = settings;
		this.capacity = 2 + this.random.nextInt(3);
	}

	String workerId() {
		return "s" + this.index + "." + this.incarnation;
	}

	@Override
	public void run() {
		try {
			while (!this.world.stopped()) {
				if (this.stream == null || this.stream.dead()) {
					adoptPushes();
					connect();
					continue;
				}
				takePushes(0);
				topUpCredits();
				Held lease = renewalDue();
				if (lease != null) {
					renew(lease);
				}
				else if (this.held.isEmpty()) {
					takePushes(this.world.loading() ? 200 : 50);
				}
				else {
					act(this.held.get(this.random.nextInt(this.held.size())));
				}
			}
		}
		finally {
			if (this.stream != null) {
				this.stream.close();
			}
		}
	}

	/**
	 * Opens a stream (to the next instance when the last one failed) and says hello;
	 * leases already held stay held.
	 */
	private void connect() {
		int at = this.pacing.instance() % this.instances.size();
		StreamConnection opened = StreamConnection.open(this.history, this.instances.get(at), at, workerId(),
				this.client.streamToken(workerId()), this.settings.requestTimeout());
		if (opened == null) {
			this.pacing.backOff();
			return;
		}
		this.leaseSeconds = this.pacing.leaseSeconds();
		this.queues = (this.random.nextInt(4) == 0)
				? List.of(World.QUEUES.get(this.random.nextInt(World.QUEUES.size()))) : World.QUEUES;
		int status = opened.hello(this.queues, this.leaseSeconds);
		if (status != 200) {
			if (status == Exchange.TIMED_OUT) {
				this.history.violation("no-hang", workerId() + "'s stream hello got no answer within the timeout");
			}
			else if (status >= 500 && status != 503) {
				this.history.violation("no-5xx", workerId() + "'s stream hello was answered " + status);
			}
			else if (status < 500 && status != Exchange.NO_ANSWER) {
				this.history.violation("expected-answers", workerId() + "'s stream hello was answered " + status);
			}
			opened.abort("hello answered " + status);
			this.pacing.backOff();
			return;
		}
		this.stream = opened;
		this.tally.add("stream_connects");
	}

	/**
	 * Takes the leases a stream that ended had pushed before it ended: they are this
	 * worker's, whatever became of the connection.
	 */
	private void adoptPushes() {
		if (this.stream != null) {
			takePushes(0);
			this.stream = null;
		}
	}

	/** Gives credits for every free slot that no credit stands for yet. */
	private void topUpCredits() {
		long free = this.capacity - this.held.size() - this.stream.outstandingCredits();
		if (free > 0) {
			this.stream.credit((int) free);
		}
	}

	/** Takes the leases pushed meanwhile, waiting up to {@code millis} for the first. */
	private void takePushes(long millis) {
		StreamConnection.Pushed pushed = this.stream.nextPush(millis);
		while (pushed != null) {
			took(pushed.grant());
			pushed = this.stream.nextPush(0);
		}
	}

	private void took(Exchange grant) {
		this.held.add(new Held(grant, this.leaseSeconds));
		this.tally.add("stream_claims");
		this.tally.add("claims");
	}

	private Held renewalDue() {
		for (Held lease : this.held) {
			if (lease.millisUntilRenewal() <= 0 && !lease.renewedJustNow()) {
				return lease;
			}
		}
		return null;
	}

	private void act(Held lease) {
		if (!this.world.loading()) {
			this.pacing.pause(5, 30);
			complete(lease, this.random.nextBoolean());
			return;
		}
		if (this.random.nextInt(100) < 6) {
			replayStale(lease);
		}
		lease.steps++;
		if (lease.steps < 2 || this.random.nextInt(100) < 30) {
			work(lease);
			return;
		}
		int choice = this.random.nextInt(100);
		if (choice < 38) {
			complete(lease, this.random.nextInt(3) == 0);
		}
		else if (choice < 48) {
			checkpoint(lease);
		}
		else if (choice < 56) {
			release(lease);
		}
		else if (choice < 64) {
			fail(lease);
		}
		else if (choice < 72) {
			cutMidMessage(lease);
		}
		else if (choice < 78) {
			dropConnection();
		}
		else if (choice < 84) {
			stallThenWrite(lease);
		}
		else if (choice < 88) {
			crash();
		}
		else {
			duplicateComplete(lease);
		}
	}

	/** Works on it a little: wakes up to renew in time. */
	private void work(Held lease) {
		long millis = (this.random.nextInt(5) == 0) ? 200 + this.random.nextInt(800) : 10 + this.random.nextInt(150);
		long untilRenewal = this.held.stream().mapToLong(Held::millisUntilRenewal).min().orElse(millis);
		// A renewal just answered is not sent again within a quarter second: no spinning.
		Pacing.pauseMillis(Math.max(5, Math.min(millis, untilRenewal)));
	}

	private void renew(Held lease) {
		int seconds = this.pacing.leaseSeconds();
		Reply reply = write(lease, Op.RENEW, "renew", Map.of("epoch", lease.epoch, "leaseSeconds", seconds));
		if (reply.status() == 200) {
			lease.granted(reply.exchange(), seconds);
		}
		else if (reply.exchange().staleRejection()) {
			lost(lease);
		}
		else {
			uncertain(lease, reply, seconds);
		}
	}

	/** Saves a checkpoint and renews the lease in the same write. */
	private void checkpoint(Held lease) {
		int seconds = this.pacing.leaseSeconds();
		Reply reply = write(lease, Op.CHECKPOINT, "checkpoint", Map.of("epoch", lease.epoch, "data",
				Map.of("step", lease.steps, "by", workerId()), "renewSeconds", seconds));
		if (reply.status() == 201) {
			lease.granted(reply.exchange(), seconds);
			this.tally.add("stream_checkpoints");
		}
		else if (reply.exchange().staleRejection()) {
			lost(lease);
		}
		else {
			uncertain(lease, reply, seconds);
		}
	}

	/**
	 * Completes; with {@code next}, asks for the next item in the same answer, which then
	 * takes this lease's slot without a credit.
	 */
	private void complete(Held lease, boolean next) {
		Reply reply = send(completion(lease, next));
		for (Reply grant : reply.entries()) {
			if (grant.status() == 201) {
				took(grant.exchange());
				this.tally.add("stream_next_claims");
			}
		}
		completed(lease, reply);
	}

	/** Its result names its lease, so an item it changed would show it. */
	private Write completion(Held lease, boolean next) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("epoch", lease.epoch);
		body.put("result", Map.of("by", workerId(), "lease", lease.leaseId.toString()));
		if (next) {
			body.put("claimNext", Map.of("queues", this.queues, "leaseSeconds", this.leaseSeconds));
		}
		return new Write(Op.COMPLETE, "complete", lease.leaseId, lease.itemId, lease.epoch, false, body, next);
	}

	private void completed(Held lease, Reply reply) {
		if (reply.ok()) {
			this.tally.add("stream_completions");
			ended(lease);
		}
		else if (reply.releaseInstead()) {
			release(lease);
		}
		else {
			settle(lease, reply);
		}
	}

	private void release(Held lease) {
		Reply reply = write(lease, Op.RELEASE, "release", Map.of("epoch", lease.epoch, "reason", "giving it back"));
		if (reply.status() == 200) {
			ended(lease);
		}
		else {
			settle(lease, reply);
		}
	}

	/** Fails it, retryable: the item backs off and comes back (or waits for a human). */
	private void fail(Held lease) {
		Reply reply = write(lease, Op.FAIL, "fail", Map.of("epoch", lease.epoch, "error",
				Map.of("message", "simulated failure", "by", workerId()), "retryable", true));
		if (reply.status() == 200) {
			this.tally.add("stream_failures");
			ended(lease);
		}
		else {
			settle(lease, reply);
		}
	}

	/**
	 * Sends half of a completion and cuts the connection: nothing of it may be done (were
	 * it done, the item would be completed with no completion accepted, which the checker
	 * reports). Either its stream's message is cut after its first fragment, and the
	 * worker connects again (to the other instance) and goes on with its leases; or a
	 * stream of its own is cut in the middle of a frame ({@link HalfFrame}).
	 */
	private void cutMidMessage(Held lease) {
		Write write = new Write(Op.COMPLETE, "complete", lease.leaseId, lease.itemId, lease.epoch, false,
				Map.of("epoch", lease.epoch, "result", Map.of("cut", true, "padding", "x".repeat(200))), false);
		if (this.random.nextBoolean()) {
			this.tally.add("stream_cut_mid_message");
			this.stream.cutMidMessage(write);
			adoptPushes();
			this.pacing.switchInstance();
			return;
		}
		Map<String, Object> message = Map.of("type", "complete", "ref", -1, "leaseId", lease.leaseId.toString(), "body",
				write.body());
		if (HalfFrame.send(this.instances.get(this.pacing.instance() % this.instances.size()),
				this.client.streamToken(workerId()), Client.JSON.writeValueAsString(message), this.random)) {
			this.tally.add("stream_cut_mid_frame");
		}
	}

	/** Drops the connection abruptly while holding leases, and connects again. */
	private void dropConnection() {
		this.tally.add("stream_dropped_holding_leases");
		this.stream.abort("dropped by the worker");
		adoptPushes();
		this.pacing.switchInstance();
		this.pacing.pause(20, 300);
	}

	/**
	 * Stalls until the lease is certainly dead, then writes on it as if nothing happened
	 * (its other leases may die meanwhile too: their next writes find out).
	 */
	private void stallThenWrite(Held lease) {
		if (lease.uncertain) {
			work(lease);
			return;
		}
		this.tally.add("stream_stalls_past_lease");
		Pacing.pauseMillis((lease.deadAfterNanos - System.nanoTime()) / 1_000_000 + 1 + this.random.nextInt(150));
		staleWrite(lease.leaseId, lease.itemId, lease.epoch, lease.epoch);
		ended(lease);
	}

	/**
	 * Vanishes: the connection drops, every lease it holds is left to expire, and it
	 * comes back as someone new.
	 */
	private void crash() {
		this.tally.add("stream_crashes");
		this.stream.abort("crashed");
		this.stream = null;
		for (Held lease : this.held) {
			this.past.remember(lease, lease.uncertain ? Long.MAX_VALUE : lease.deadAfterNanos);
		}
		this.held.clear();
		this.incarnation++;
		this.pacing.pause(100, 600);
	}

	/** The same completion twice at once, on the one stream: exactly one may succeed. */
	private void duplicateComplete(Held lease) {
		this.tally.add("stream_duplicate_requests");
		Write write = completion(lease, false);
		StreamConnection.Sent first = this.stream.send(write);
		StreamConnection.Sent second = this.stream.send(write);
		completed(lease, Reply.decisive(this.stream.answer(first), this.stream.answer(second)));
	}

	/**
	 * Replays a write from the past over the stream: a lease known to be dead, or this
	 * lease with the wrong epoch.
	 */
	private void replayStale(Held lease) {
		if (!this.past.isEmpty() && this.random.nextBoolean()) {
			PastLeases.Past old = this.past.any(this.random);
			if (old.surelyDead()) {
				staleWrite(old.leaseId(), old.itemId(), old.epoch(), old.epoch());
			}
			return;
		}
		staleWrite(lease.leaseId, lease.itemId, lease.epoch,
				this.random.nextBoolean() ? lease.epoch + 1 : lease.epoch - 1);
	}

	private void staleWrite(UUID leaseId, UUID itemId, long epoch, long presented) {
		Write write = switch (this.random.nextInt(5)) {
			case 0 -> new Write(Op.RENEW, "renew", leaseId, itemId, presented, true, Map.of("epoch", presented), false);
			case 1 ->
				new Write(Op.RELEASE, "release", leaseId, itemId, presented, true, Map.of("epoch", presented), false);
			case 2 -> new Write(Op.FAIL, "fail", leaseId, itemId, presented, true,
					Map.of("epoch", presented, "error", Map.of("replayed", true)), false);
			case 3 -> new Write(Op.CHECKPOINT, "checkpoint", leaseId, itemId, presented, true,
					Map.of("epoch", presented, "data", Map.of("replayed", true)), false);
			default -> new Write(Op.COMPLETE, "complete", leaseId, itemId, presented, true,
					Map.of("epoch", presented, "result", Map.of("replayed", true)), false);
		};
		this.tally.add("stale_writes_attempted");
		this.tally.add("stream_stale_writes");
		send(write);
	}

	/**
	 * After an answer that was neither success nor a clean rejection: a stale lease is
	 * lost; an unknown outcome (the stream dropped, a 503) is settled by reading the
	 * lease over HTTP; anything else leaves the lease as it was.
	 */
	private void settle(Held lease, Reply reply) {
		if (reply.exchange().staleRejection()) {
			lost(lease);
			return;
		}
		if (!reply.unavailable()) {
			return;
		}
		for (int attempt = 0; attempt < 40 && !this.world.stopped(); attempt++) {
			this.pacing.backOff();
			Reply read = this.client.send(Call.get(workerId(), Op.READ, "/leases/" + lease.leaseId)
				.item(lease.itemId)
				.via(this.pacing.instance())
				.asWorker());
			if (read.status() == 200) {
				if (!read.body().path("active").asBoolean()) {
					ended(lease);
				}
				return;
			}
		}
		this.past.remember(lease, Long.MAX_VALUE);
		this.held.remove(lease);
	}

	/** A renewal (or checkpoint) whose outcome is unknown may have renewed it. */
	private void uncertain(Held lease, Reply reply, int seconds) {
		lease.mayHaveBeenRenewed(reply.exchange(), seconds);
		if (reply.unavailable()) {
			this.pacing.backOff();
		}
	}

	/** Sends a write on the current stream, connecting first if it has none. */
	private Reply write(Held lease, Op op, String type, Map<String, Object> body) {
		return send(new Write(op, type, lease.leaseId, lease.itemId, lease.epoch, false, body, false));
	}

	private Reply send(Write write) {
		if (this.stream == null || this.stream.dead()) {
			adoptPushes();
			connect();
		}
		if (this.stream == null) {
			// No instance takes a stream now: the write goes over HTTP, as the runtime
			// falls back (without a next claim, which only the stream's record follows).
			String path = "/leases/" + write.leaseId() + "/"
					+ (write.type().equals("checkpoint") ? "checkpoints" : write.type());
			Map<String, Object> body = new LinkedHashMap<>(write.body());
			body.remove("claimNext");
			return this.client.send(Call.post(workerId(), write.op(), path, body)
				.lease(write.leaseId(), write.epoch())
				.item(write.itemId())
				.stale(write.stale())
				.via(this.pacing.instance())
				.asWorker());
		}
		return this.stream.write(write);
	}

	private void ended(Held lease) {
		this.past.remember(lease, System.nanoTime());
		this.held.remove(lease);
	}

	private void lost(Held lease) {
		this.tally.add("leases_lost");
		ended(lease);
	}

}
