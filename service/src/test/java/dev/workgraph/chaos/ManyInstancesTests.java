package dev.workgraph.chaos;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.workgraph.chaos.ChaosCluster.Topology;
import dev.workgraph.chaos.ChaosRun.Result;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many instances, as a deployment for many teams runs them (docs/scaling.md): four
 * service instances on one database, two of them an hour ahead under libfaketime where it
 * is installed, every one reaching PostgreSQL through a real PgBouncer in transaction
 * mode, and the actors' requests going through a load balancer in front of them. The
 * history checker proves that no item was granted twice, each expiry was recorded once
 * (the four reapers race for every one), and every invariant of docs/reliability.md held.
 * The soak is short in the normal build; {@code -Dchaos.scale.load=10m} makes it long.
 */
@Tag("chaos")
class ManyInstancesTests {

	/** How soon after PostgreSQL is back the service must be back behind PgBouncer. */
	private static final Duration RECOVERY = Duration.ofSeconds(10);

	private static ChaosCluster cluster;

	@BeforeAll
	static void startCluster() {
		cluster = ChaosCluster.start(new Topology(4, true, false, true), ChaosTests.reports("many-instances-services"));
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@Test
	void fourInstancesBehindALoadBalancerAndPgBouncerNeverGrantTwiceWhileOneIsKilled() {
		Duration load = ChaosSettings.parse(System.getProperty("chaos.scale.load", "20s"));
		Result result = run("many-instances", load, (faults, random, loading) -> {
			ChaosTests.pauseWhile(loading, 6_000);
			faults.killInstance(random.nextInt(4));
		});
		ChaosTests.assertExercised(result);
		assertThat(Arrays.stream(cluster.loadBalancer().connectionsPerInstance()))
			.as("connections the load balancer handed to each instance")
			.allSatisfy((connections) -> assertThat(connections).isPositive());
	}

	/**
	 * PostgreSQL restarted, then crashed, under load behind PgBouncer: no 5xx but 503,
	 * every invariant, and recovery within {@link #RECOVERY} of each restart finishing
	 * (PostgreSQL accepting connections again): every instance answers a read and reports
	 * healthy, a claim is granted, and no request fails for want of the service after it.
	 */
	@Test
	void postgresRestartsAndCrashesUnderPgBouncerWithoutA500() {
		Result result = run("pgbouncer-postgres-restarted", Duration.ofSeconds(12), (faults, random, loading) -> {
			ChaosTests.pauseWhile(loading, 3_000);
			faults.restartPostgres("fast");
			ChaosTests.pauseWhile(loading, 4_000);
			faults.restartPostgres("immediate");
		});
		assertThat(result.faults()).hasSize(2);
		ChaosTests.assertExercised(result);
		assertThat(result.faults()).allSatisfy((fault) -> assertThat(fault.recoveredMillis)
			.as("ms until every instance answered normally after %s (%s)", fault.name, fault.note)
			.isBetween(0L, RECOVERY.toMillis()));
		assertThat(result.recoveries()).hasSize(2).allSatisfy((recovery) -> {
			assertThat(recovery.firstClaimMillis()).as("ms until a claim was granted: %s", recovery.describe())
				.isBetween(0L, RECOVERY.toMillis());
			assertThat(recovery.lastUnavailableMillis())
				.as("ms until the last request that failed for want of the service: %s", recovery.describe())
				.isLessThan(RECOVERY.toMillis());
		});
	}

	/**
	 * A claim waiting on each of the four instances ({@code waitSeconds}), then items
	 * made ready through the load balancer: every waiter is woken by the notification its
	 * own instance's listener hears on its direct connection (the periodic recheck is ten
	 * minutes away, the wait 40 s) and gets an item of its own.
	 */
	@Test
	void longPollWaitersOnEveryInstanceAreWoken() throws Exception {
		cluster.ensureRunning();
		String queue = "wake-" + System.nanoTime();
		HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		List<CompletableFuture<HttpResponse<String>>> waiters = new ArrayList<>();
		for (ServiceInstance instance : cluster.instances()) {
			String worker = "waiter-" + instance.name() + "-" + queue;
			waiters.add(
					http.sendAsync(
							post(instance.base() + "/claims",
									"{\"workerId\":\"" + worker + "\",\"queues\":[\"" + queue
											+ "\"],\"waitSeconds\":40}",
									workerToken(http, worker)),
							HttpResponse.BodyHandlers.ofString()));
		}
		// Every claim has found nothing and waits (a claim that came after the items
		// would not prove a wake-up: below, each answer must come after the creates).
		Thread.sleep(3_000);
		assertThat(waiters).noneMatch(CompletableFuture::isDone);
		long created = System.nanoTime();
		Set<String> items = new HashSet<>();
		for (int i = 0; i < cluster.instances().size(); i++) {
			HttpResponse<String> item = http.send(post(cluster.frontDoor() + "/items",
					"{\"title\":\"wake " + i + "\",\"queue\":\"" + queue + "\"}", cluster.adminToken()),
					HttpResponse.BodyHandlers.ofString());
			assertThat(item.statusCode()).as(item.body()).isEqualTo(201);
			items.add(Client.JSON.readTree(item.body()).path("id").asString());
		}
		Set<String> claimed = new HashSet<>();
		for (CompletableFuture<HttpResponse<String>> waiter : waiters) {
			HttpResponse<String> answer = waiter.get(60, TimeUnit.SECONDS);
			assertThat(answer.statusCode()).as("a waiter's answer: " + answer.body()).isEqualTo(201);
			claimed.add(Client.JSON.readTree(answer.body()).path("item").path("id").asString());
		}
		assertThat(System.nanoTime() - created).as("woken before the wait ran out")
			.isLessThan(TimeUnit.SECONDS.toNanos(37));
		assertThat(claimed).isEqualTo(items);
	}

	/** A worker token of the worker's own, issued with the cluster's admin token. */
	private static String workerToken(HttpClient http, String workerId) throws Exception {
		HttpResponse<String> issued = http.send(post(cluster.frontDoor() + "/tokens",
				"{\"name\":\"" + workerId + "\",\"role\":\"worker\",\"workerId\":\"" + workerId + "\"}",
				cluster.adminToken()), HttpResponse.BodyHandlers.ofString());
		assertThat(issued.statusCode()).as(issued.body()).isEqualTo(201);
		return Client.JSON.readTree(issued.body()).path("token").asString();
	}

	private static HttpRequest post(String url, String json, String token) {
		return HttpRequest.newBuilder(URI.create(url))
			.header("Content-Type", "application/json")
			.header("Authorization", "Bearer " + token)
			.timeout(Duration.ofSeconds(90))
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build();
	}

	private static Result run(String name, Duration load, ChaosRun.FaultPlan plan) {
		Result result = new ChaosRun(name, ChaosSettings.quick(load), cluster, ChaosTests.reports(name)).run(plan);
		assertThat(result.passed()).as(result.failure()).isTrue();
		assertThat(result.figures().get("errors_5xx")).as("5xx other than 503").isZero();
		return result;
	}

}
