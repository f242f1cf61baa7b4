package dev.workgraph.webhook;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.workgraph.change.Change;
import dev.workgraph.change.ChangeTypes;
import dev.workgraph.notification.ChannelSubscriber;
import dev.workgraph.sql.TrimBetweenPasses;
import dev.workgraph.webhook.WebhookSender.Sent;
import dev.workgraph.webhook.Webhooks.Attempt;
import dev.workgraph.webhook.Webhooks.Dispatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Delivers the change stream to the webhooks, on every instance: a thread that looks for
 * webhooks with something to do when the sequencer publishes changes (a notification) and
 * at least every {@code poll-interval} (retries falling due), takes them (see
 * {@link Webhooks#TAKE_DUE}) and delivers each on a virtual thread of its own: its
 * changes after its cursor, one at a time, in seq order, the cursor moved past each only
 * once the target answered 2xx. A failure ends the pass; the webhook is taken again when
 * its retry is due. Nothing here runs inside a request, and no transaction is open while
 * a target answers: each write is one statement.
 */
@Component
@EnableConfigurationProperties(WebhookProperties.class)
class WebhookDispatcher implements SmartLifecycle, ChannelSubscriber {

	private static final Logger log = LoggerFactory.getLogger(WebhookDispatcher.class);

	/** Changes read per query while delivering. */
	static final int PAGE = 100;

	/** Webhooks taken per scan. */
	static final int TAKEN_PER_SCAN = 32;

	/** Delivery log rows trimmed per statement. */
	static final int TRIM_BATCH = 1000;

	private static final Duration TRIM_INTERVAL = Duration.ofMinutes(1);

	private final Webhooks webhooks;

	private final WebhookProperties properties;

	private final AllowedHosts allowedHosts;

	private final WebhookSender sender;

	private final JsonMapper json;

	private final Duration retention;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition signalled = this.lock.newCondition();

	private boolean signal;

	/**
	 * Whether an enabled webhook existed at the last look (each poll interval, and when
	 * one is created on this instance). While none does, a publication wakes no scan: the
	 * sequencer publishes some 50 times a second under load, and each scan is a
	 * statement.
	 */
	private volatile boolean anyEnabled = true;

	/**
	 * Set when a webhook is created here: the scanner looks again at once. Not a write of
	 * {@link #anyEnabled} itself, which a look already under way, begun before the
	 * webhook committed, would overwrite with its stale answer.
	 */
	private final AtomicBoolean lookAgain = new AtomicBoolean();

	private volatile boolean running;

	private Thread thread;

	private ExecutorService deliveries;

	/**
	 * The delivery log past the retention, a batch after each scan while there is any.
	 */
	private final TrimBetweenPasses trimming;

	WebhookDispatcher(Webhooks webhooks, WebhookProperties properties, JsonMapper json,
			@Value("${workgraph.outbox.retention:7d}") Duration retention) {
		this.webhooks = webhooks;
		this.properties = properties;
		this.allowedHosts = new AllowedHosts(properties.allowedHosts());
		this.sender = new WebhookSender(properties.connectTimeout(), properties.timeout());
		this.json = json;
		this.retention = retention;
		this.trimming = new TrimBetweenPasses(TRIM_INTERVAL, TRIM_BATCH,
				() -> this.webhooks.trimDeliveries(this.retention, TRIM_BATCH));
	}

	@Override
	public List<String> channels() {
		return List.of(ChangeTypes.PUBLISHED_CHANNEL);
	}

	@Override
	public void notified(String channel, String payload, Session session) {
		wake();
	}

	@Override
	public void listening() {
		wake();
	}

	/**
	 * A webhook was created here: deliver from now on, without waiting for the next
	 * periodic look (another instance's dispatcher learns of it within a poll interval).
	 */
	void created() {
		this.lookAgain.set(true);
		wake();
	}

	/** Looks for webhooks to deliver now. */
	void wake() {
		this.lock.lock();
		try {
			this.signal = true;
			this.signalled.signal();
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public void start() {
		this.running = true;
		this.deliveries = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("webhook-delivery-", 0).factory());
		this.thread = Thread.ofPlatform().name("webhook-dispatcher").daemon().start(this::scanUntilStopped);
	}

	@Override
	public void stop() {
		this.running = false;
		wake();
		Thread scanner = this.thread;
		try {
			if (scanner != null) {
				scanner.join(Duration.ofSeconds(5));
			}
			// Deliveries under way end with their current attempt (at most the timeout).
			this.deliveries.shutdown();
			if (!this.deliveries.awaitTermination(this.properties.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS)) {
				this.deliveries.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	private void scanUntilStopped() {
		long lookedAt = System.nanoTime() - this.properties.pollInterval().toNanos();
		while (this.running) {
			Duration pause = this.properties.pollInterval();
			try {
				if (this.lookAgain.getAndSet(false) || System.nanoTime() - lookedAt >= pause.toNanos()) {
					this.anyEnabled = this.webhooks.anyEnabled();
					lookedAt = System.nanoTime();
				}
				if (this.anyEnabled) {
					for (Dispatch dispatch : this.webhooks.takeDue(this.properties.hold(), TAKEN_PER_SCAN)) {
						this.deliveries.execute(() -> deliver(dispatch));
					}
				}
				this.trimming.step();
			}
			catch (RuntimeException ex) {
				if (!this.running) {
					break;
				}
				log.warn("The webhook dispatcher could not look for due webhooks, retrying: {}", ex.getMessage());
				pause = Duration.ofSeconds(1);
			}
			try {
				awaitSignal(pause);
			}
			catch (InterruptedException ex) {
				break;
			}
		}
	}

	/**
	 * Delivers one webhook's changes until none is left, one fails, or the hold is lost.
	 */
	private void deliver(Dispatch taken) {
		Dispatch current = taken;
		boolean holding = true;
		try {
			while (this.running && holding) {
				long head = this.webhooks.head();
				List<Change> page = this.webhooks.changesAfter(current.cursor(), head, current.types(), PAGE);
				for (Change change : page) {
					String refusal = this.allowedHosts.refusal(current.url());
					if (refusal != null) {
						this.webhooks.disable(current, "The target's URL " + refusal);
						log.warn("Webhook {} disabled: its URL {}", current.id(), refusal);
						return;
					}
					Optional<Dispatch> next = post(current, change);
					if (next.isEmpty()) {
						holding = false;
						break;
					}
					current = next.get();
				}
				if (holding && page.size() < PAGE) {
					// Every wanted change up to the head is delivered: those between were
					// not wanted.
					if (head > current.cursor()) {
						holding = this.webhooks.passOver(current, head, this.properties.hold());
						current = current.advancedTo(head);
					}
					break;
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (RuntimeException ex) {
			log.warn("Webhook {}: delivery stopped, to be taken again: {}", current.id(), ex.getMessage());
		}
		finally {
			if (holding) {
				release(current);
			}
		}
	}

	/**
	 * One attempt at one change: the dispatch moved past it when delivered, empty when it
	 * failed (the retry is scheduled) or the hold was lost.
	 */
	private Optional<Dispatch> post(Dispatch dispatch, Change change) throws InterruptedException {
		String messageId = "msg_" + dispatch.id() + "_" + change.seq();
		byte[] body = this.json.writeValueAsBytes(new Message(change.type(), change.at(), change));
		int number = dispatch.attempts() + 1;
		long started = System.nanoTime();
		Sent sent = this.sender.send(dispatch.url(), messageId, dispatch.secret(), body);
		int millis = (int) TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
		Attempt attempt = new Attempt(change.seq(), messageId, number, sent.status(), sent.error(), millis);
		if (sent.delivered()) {
			return this.webhooks.recordDelivered(dispatch, attempt, this.properties.hold())
					? Optional.of(dispatch.advancedTo(change.seq())) : Optional.empty();
		}
		Duration retry = this.properties.retryAfter(number);
		Optional<Boolean> disabled = this.webhooks.recordFailed(dispatch, attempt, retry,
				this.properties.disableAfter());
		if (disabled.orElse(false)) {
			log.warn("Webhook {} disabled: every attempt failed for {}; the last: {}", dispatch.id(),
					this.properties.disableAfter(), sent.error());
		}
		else {
			log.debug("Webhook {}: attempt {} at seq {} failed ({}), next in {}", dispatch.id(), number, change.seq(),
					sent.error(), retry);
		}
		return Optional.empty();
	}

	private void release(Dispatch dispatch) {
		try {
			this.webhooks.release(dispatch);
			// Changes published while this one was held were not taken by a scan.
			wake();
		}
		catch (RuntimeException ex) {
			log.debug("Webhook {}: could not release it; its hold runs out by itself: {}", dispatch.id(),
					ex.getMessage());
		}
	}

	private void awaitSignal(Duration timeout) throws InterruptedException {
		this.lock.lock();
		try {
			long nanos = timeout.toNanos();
			while (!this.signal && this.running && nanos > 0) {
				nanos = this.signalled.awaitNanos(nanos);
			}
			this.signal = false;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * The body posted, as Standard Webhooks suggests: the type, a timestamp and the
	 * change itself as {@code data}.
	 */
	record Message(String type, Instant timestamp, Change data) {
	}

}
