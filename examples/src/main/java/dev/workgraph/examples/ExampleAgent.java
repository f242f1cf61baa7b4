package dev.workgraph.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.workgraph.client.AttentionRequest;
import dev.workgraph.client.Item;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.NewChild;
import dev.workgraph.client.NewItem;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.client.problem.WorkGraphException;
import dev.workgraph.client.worker.LeaseContext;
import dev.workgraph.client.worker.TokenRefused;
import dev.workgraph.client.worker.Worker;
import dev.workgraph.client.worker.WorkerListener;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An agent that does what real agents do with Work Graph: it turns a plan into steps
 * (decompose), works on each step while its lease is renewed in the background, asks a
 * human before anything risky and goes on with the answer, and sums up the plan once its
 * steps are done. Ctrl-C stops it cleanly.
 *
 * <p>
 * What an item is comes from its {@code metadata.kind}:
 * <ul>
 * <li>{@code plan}: decompose into {@code metadata.steps} (each waits for the one
 * before); when claimed again with every step done, complete with their results;
 * <li>{@code approval}: ask a human ({@code metadata.question}); when claimed again with
 * the answer, complete with it;
 * <li>anything else: work for {@code metadata.seconds} (default 3) seconds, then
 * complete.
 * </ul>
 *
 * <pre>
 * ./mvnw -q -pl examples -am compile exec:java -Dexec.args="--seed"
 * </pre>
 */
public final class ExampleAgent {

	static final String USAGE = """
			Usage: ExampleAgent [--url URL] [--admin-token TOKEN | --token TOKEN] [--worker-id ID]
			                    [--queue NAME] [--concurrency N] [--lease-seconds N] [--seed] [--help]
			  --url            the service (default $WORKGRAPH_URL or http://localhost:8080)
			  --admin-token    an admin token (default $WG_ADMIN_TOKEN): the agent mints its own
			                   worker token with it, and seeds the plan as the admin
			  --token          a worker token bound to the worker id (default $WORKGRAPH_TOKEN),
			                   instead of minting one
			  --worker-id      this agent's stable identity (default example-agent@<host>)
			  --queue          the queue to work on (default examples)
			  --concurrency    items worked on at once (default 2)
			  --lease-seconds  lease length, renewed every third of it (default 30)
			  --seed           first create a demo plan to work on
			""";

	private ExampleAgent() {
	}

	public static void main(String[] args) {
		if (List.of(args).contains("--help")) {
			System.out.print(USAGE);
			return;
		}
		Options options;
		try {
			options = Options.parse(args);
		}
		catch (IllegalArgumentException ex) {
			System.err.println(ex.getMessage());
			System.err.print(USAGE);
			System.exit(2);
			return;
		}
		// The runtime logs through System.Logger; without a logging library that is
		// java.util.logging, here on one line per message.
		if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
			System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT  %4$s: %5$s%6$s%n");
		}
		AgentAccess access = new AgentAccess(options.url(), options.token(), options.adminToken());
		Worker worker;
		try {
			WorkGraphClient client = access.worker(options.workerId());
			if (access.minted() != null) {
				say("minted a worker token for %s (revoked when the agent stops)", options.workerId());
			}
			if (options.seed()) {
				Item plan = access.seed(options.queue());
				say("seeded plan %s: \"%s\"", plan.id(), plan.title());
			}
			worker = worker(client, options.workerId(), options.queue(), options.concurrency(), options.leaseSeconds());
		}
		catch (AgentAccess.Refused ex) {
			System.err.println(ex.getMessage());
			access.close();
			System.exit(1);
			return;
		}
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			if (worker.isRunning()) {
				say("stopping: finishing work in hand (up to 10 s), releasing the rest");
			}
			worker.stop(Duration.ofSeconds(10));
			access.close();
		}));
		say("%s working on queue \"%s\" at %s; Ctrl-C to stop", options.workerId(), options.queue(), options.url());
		try {
			worker.run();
		}
		catch (TokenRefused ex) {
			System.exit(1); // the runtime said why, once
		}
	}

	/** The agent's worker: the handler below, with progress printed as it goes. */
	public static Worker worker(WorkGraphClient client, String workerId, String queue, int concurrency,
			int leaseSeconds) {
		return Worker.builder(client)
			.workerId(workerId)
			.queues(queue)
			.concurrency(concurrency)
			.leaseSeconds(leaseSeconds)
			.handler(ExampleAgent::handle)
			.listener(new Progress())
			.build();
	}

	/**
	 * A demo plan: build, ask for approval, deploy, write notes, one after the other. It
	 * is {@code release-plan.json}, which the README also sends with curl.
	 */
	public static Item seed(WorkGraphClient client, String queue) {
		JsonNode plan;
		try (InputStream json = ExampleAgent.class.getResourceAsStream("/release-plan.json")) {
			plan = JsonMapper.builder().build().readTree(json);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return client.createItem(
				NewItem.titled(plan.path("title").asString()).withQueue(queue).withMetadata(plan.path("metadata")));
	}

	static Object handle(LeaseContext lease) throws InterruptedException {
		Item item = lease.item();
		String kind = item.metadata().path("kind").asString("task");
		return switch (kind) {
			case "plan" -> plan(lease, item);
			case "approval" -> approval(lease, item);
			default -> work(lease, item);
		};
	}

	/** First claim: decompose into steps. Claimed again once they are done: sum up. */
	private static Object plan(LeaseContext lease, Item item) {
		if (item.children().isEmpty()) {
			List<NewChild> steps = new ArrayList<>();
			int index = 0;
			for (JsonNode step : item.metadata().path("steps")) {
				String key = "step-" + (++index);
				NewChild child = NewChild.of(key, step.path("title").asString()).withMetadata(step);
				steps.add((index > 1) ? child.withDependsOn("step-" + (index - 1)) : child);
			}
			lease.decompose(steps, "planned " + steps.size() + " steps");
			say("planned \"%s\" as %d steps", item.title(), steps.size());
			return null;
		}
		Map<String, Object> results = new LinkedHashMap<>();
		item.children().forEach((child) -> results.put(child.title(), child.result()));
		say("\"%s\" is done", item.title());
		return Map.of("steps", results);
	}

	/** Ask first; once answered (the item is ready again), act on the answer. */
	private static Object approval(LeaseContext lease, Item item) {
		List<AttentionRequest> answers = item.answers();
		if (answers.isEmpty()) {
			String question = item.metadata().path("question").asString("May I go ahead with: " + item.title() + "?");
			lease.askHuman(question, Map.of("item", item.title(), "askedBy", lease.workerId()));
			say("asked a human: %s", question);
			return null;
		}
		AttentionRequest answer = answers.get(answers.size() - 1);
		say("%s answered \"%s\"", answer.resolvedBy(), answer.resolution());
		return Map.of("approvedBy", String.valueOf(answer.resolvedBy()), "answer", answer.resolution());
	}

	/**
	 * Simulated work in one-second steps. The lease is renewed in the background; between
	 * steps the agent checks that it still holds it, and a sleep is cut short by the
	 * interrupt that comes when it is lost.
	 */
	private static Object work(LeaseContext lease, Item item) throws InterruptedException {
		int seconds = item.metadata().path("seconds").asInt(3);
		say("working on \"%s\" (%d s, lease %s, epoch %d)", item.title(), seconds, lease.leaseId(), lease.epoch());
		for (int second = 0; second < seconds; second++) {
			Thread.sleep(1_000);
			lease.ensureHeld();
		}
		return Map.of("summary", item.title() + ": done in " + seconds + " s", "by", lease.workerId());
	}

	static void say(String format, Object... values) {
		System.out.println(LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + "  " + String.format(format, values));
	}

	/**
	 * Prints what happens to leases besides the handler's own story, leaving out what the
	 * runtime logs itself (lost leases, handler failures and claims refused for good are
	 * warnings there): nothing is said twice.
	 */
	private static final class Progress implements WorkerListener {

		@Override
		public void leaseEnded(LeaseContext lease, LeaseOutcome outcome) {
			if (outcome == LeaseOutcome.COMPLETED) {
				say("completed \"%s\"", lease.item().title());
			}
		}

		/** Only transient failures: the runtime logs those at debug level alone. */
		@Override
		public void claimFailed(WorkGraphException failure, Duration retryIn) {
			if (failure.isTransient()) {
				say("cannot claim (%s); trying again in %d ms", failure.getMessage(), retryIn.toMillis());
			}
		}

	}

	/** Command-line options, with environment defaults. */
	record Options(String url, String adminToken, String token, String workerId, String queue, int concurrency,
			int leaseSeconds, boolean seed) {

		static Options parse(String[] args) {
			String url = env("WORKGRAPH_URL", "http://localhost:8080");
			String adminToken = env("WG_ADMIN_TOKEN", null);
			String token = env("WORKGRAPH_TOKEN", null);
			String workerId = "example-agent@" + host();
			String queue = "examples";
			int concurrency = 2;
			int leaseSeconds = 30;
			boolean seed = false;
			for (int i = 0; i < args.length; i++) {
				String arg = args[i];
				switch (arg) {
					case "--url" -> url = value(args, ++i, arg);
					case "--admin-token" -> adminToken = value(args, ++i, arg);
					case "--token" -> token = value(args, ++i, arg);
					case "--worker-id" -> workerId = value(args, ++i, arg);
					case "--queue" -> queue = value(args, ++i, arg);
					case "--concurrency" -> concurrency = number(value(args, ++i, arg), arg);
					case "--lease-seconds" -> leaseSeconds = number(value(args, ++i, arg), arg);
					case "--seed" -> seed = true;
					default -> throw new IllegalArgumentException("Unknown option " + arg);
				}
			}
			return new Options(url, adminToken, token, workerId, queue, concurrency, leaseSeconds, seed);
		}

		private static String value(String[] args, int index, String option) {
			if (index >= args.length) {
				throw new IllegalArgumentException(option + " needs a value");
			}
			return args[index];
		}

		private static int number(String text, String option) {
			try {
				return Integer.parseInt(text);
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException(option + " needs a number, got " + text);
			}
		}

		private static String env(String name, String fallback) {
			String value = System.getenv(name);
			return (value == null || value.isBlank()) ? fallback : value;
		}

		private static String host() {
			try {
				return InetAddress.getLocalHost().getHostName();
			}
			catch (UnknownHostException ex) {
				return "localhost";
			}
		}

	}

}
