package dev.workgraph.metrics;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each series of docs/operations.md ("Metrics") moves when its event happens, read from
 * {@code /actuator/prometheus} as a scraper would. Counters are cumulative over the tests
 * of this context, so every assertion is about the change an action makes.
 */
// A context of its own, with room for every queue's own series: the tests before it in
// the
// suite have used far more than the production bound of 100 queue tags (QueueTagsTests
// tests it).
@TestPropertySource(properties = "workgraph.metrics.max-queue-tags=100000")
class MetricsTests extends LeaseTestSupport {

	@Autowired
	private Gauges gauges;

	@Test
	void claimsCountByQueueAndOutcome() {
		createItem("a", "queue", "mx-claims");
		Scrape before = scrape();
		claim(Map.of("workerId", "w", "queues", List.of("mx-claims")));
		assertThat(this.api.post("/claims", Map.of("workerId", "w", "queues", List.of("mx-claims"))).status())
			.isEqualTo(204);
		assertThat(this.api.post("/claims", Map.of("workerId", "w")).status()).isEqualTo(204);
		assertThat(
				this.api.post("/claims", Map.of("workerId", "w", "queues", List.of("mx-claims", "mx-other"))).status())
			.isEqualTo(204);
		Scrape after = scrape();
		assertThat(after.delta(before, "workgraph_claims_total{outcome=\"granted\",queue=\"mx-claims\"}")).isEqualTo(1);
		assertThat(after.delta(before, "workgraph_claims_total{outcome=\"empty\",queue=\"mx-claims\"}")).isEqualTo(1);
		// No queue, or several: one count under (any), so the counts add up to the
		// claims.
		assertThat(after.delta(before, "workgraph_claims_total{outcome=\"empty\",queue=\"(any)\"}")).isEqualTo(2);
	}

	@Test
	void aWaitingClaimCountsOnceWhenAnswered() throws Exception {
		Scrape before = scrape();
		assertThat(this.api.post("/claims", Map.of("workerId", "w", "queues", List.of("mx-wait"), "waitSeconds", 1))
			.status()).isEqualTo(204);
		java.util.concurrent.CompletableFuture<Api.Response> waiting = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> this.api.post("/claims",
					Map.of("workerId", "w", "queues", List.of("mx-wait"), "waitSeconds", 30)));
		Thread.sleep(500);
		createItem("arrives while a claim waits", "queue", "mx-wait");
		assertThat(waiting.get().status()).isEqualTo(201);
		Scrape after = scrape();
		assertThat(after.delta(before, "workgraph_claims_total{outcome=\"empty\",queue=\"mx-wait\"}")).isEqualTo(1);
		assertThat(after.delta(before, "workgraph_claims_total{outcome=\"granted\",queue=\"mx-wait\"}")).isEqualTo(1);
	}

	@Test
	void everyWayALeaseEndsIsCountedByOutcome() {
		Scrape before = scrape();
		createItem("completed");
		complete(claim("w"));
		createItem("released");
		end(claim("w"), Mutation.RELEASE);
		createItem("cancelled by its worker");
		end(claim("w"), Mutation.CANCEL);
		createItem("decomposed");
		end(claim("w"), Mutation.DECOMPOSE);
		createItem("asked");
		end(claim("w"), Mutation.BLOCKING_ATTENTION_REQUEST);
		// Decomposing made two children ready: the next items go to queues of their own.
		UUID operatorCancelled = createItem("cancelled by an operator", "queue", "mx-operator");
		claim(Map.of("workerId", "w", "queues", List.of("mx-operator")));
		assertThat(this.api.post("/items/" + operatorCancelled + "/cancel", Map.of()).status()).isEqualTo(200);
		UUID expiring = createItem("expired", "queue", "mx-expiring");
		expireLease(leaseId(claim(Map.of("workerId", "w", "queues", List.of("mx-expiring")))));
		assertThat(this.reaper.reapExpired()).isEqualTo(1);
		Scrape after = scrape();
		assertThat(after.delta(before, endings("completed"))).isEqualTo(1);
		assertThat(after.delta(before, endings("released"))).isEqualTo(1);
		assertThat(after.delta(before, endings("cancelled"))).isEqualTo(2);
		assertThat(after.delta(before, endings("decomposed"))).isEqualTo(1);
		assertThat(after.delta(before, endings("attention_requested"))).isEqualTo(1);
		assertThat(after.delta(before, endings("expired"))).isEqualTo(1);
		assertThat(status(expiring)).isEqualTo("ready");
	}

	@Test
	void aRefusedCompletionCountsNoEnding() {
		UUID first = createItem("first");
		UUID other = createItem("other");
		JsonNode claim = claim("w");
		assertThat(itemId(claim)).isEqualTo(first);
		// A dependency added while the item is leased: completing it is refused (409) and
		// its transaction, which had ended the lease, rolls back.
		assertThat(this.api.post("/items/" + first + "/dependencies", Map.of("dependsOn", other.toString())).status())
			.isEqualTo(201);
		Scrape before = scrape();
		assertThat(complete(claim).code()).isEqualTo("unmet_dependencies");
		assertThat(scrape().delta(before, endings("completed"))).isZero();
		assertThat(this.api.delete("/items/" + first + "/dependencies/" + other).status()).isEqualTo(204);
		assertThat(complete(claim).status()).isEqualTo(200);
		assertThat(scrape().delta(before, endings("completed"))).isEqualTo(1);
	}

	@Test
	void fencedRejectionsAreCountedByCode() {
		Scrape before = scrape();
		createItem("item");
		JsonNode claim = claim("w");
		assertThat(this.api
			.post("/leases/" + leaseId(claim) + "/renew", Map.of("epoch", epoch(claim) + 1, "leaseSeconds", 60))
			.code()).isEqualTo("epoch_mismatch");
		expireLease(leaseId(claim));
		assertThat(complete(claim).code()).isEqualTo("lease_expired");
		this.reaper.reapExpired();
		JsonNode again = claim("w");
		complete(again);
		assertThat(complete(again).code()).isEqualTo("lease_ended");
		Scrape after = scrape();
		assertThat(after.delta(before, rejections("epoch_mismatch"))).isEqualTo(1);
		assertThat(after.delta(before, rejections("lease_expired"))).isEqualTo(1);
		assertThat(after.delta(before, rejections("lease_ended"))).isEqualTo(1);
	}

	@Test
	void crashLoopHoldsAreCounted() {
		Scrape before = scrape();
		UUID poison = createItem("poison");
		for (int i = 0; i < 3; i++) {
			expireLease(leaseId(claim("w" + i)));
			assertThat(this.reaper.reapExpired()).isEqualTo(1);
		}
		assertThat(item(poison).path("blockers").path("openAttentionRequests").asInt()).isEqualTo(1);
		Scrape after = scrape();
		assertThat(after.delta(before, "workgraph_crash_loop_holds_total")).isEqualTo(1);
		assertThat(after.delta(before, endings("expired"))).isEqualTo(3);
	}

	@Test
	void gaugesFollowTheSampledState() {
		createItem("r1", "queue", "mx-gauge-a");
		createItem("r2", "queue", "mx-gauge-a");
		createItem("r3", "queue", "mx-gauge-b");
		this.gauges.sample();
		Scrape first = scrape();
		assertThat(first.value("workgraph_ready_items{queue=\"mx-gauge-a\"}")).isEqualTo(2);
		assertThat(first.value("workgraph_ready_items{queue=\"mx-gauge-b\"}")).isEqualTo(1);
		assertThat(first.value("workgraph_active_leases")).isZero();
		assertThat(first.value("workgraph_open_attention_requests")).isZero();

		JsonNode asking = claim(Map.of("workerId", "w", "queues", List.of("mx-gauge-b")));
		claim(Map.of("workerId", "w", "queues", List.of("mx-gauge-a")));
		end(asking, Mutation.NON_BLOCKING_ATTENTION_REQUEST);
		this.gauges.sample();
		Scrape second = scrape();
		assertThat(second.value("workgraph_ready_items{queue=\"mx-gauge-a\"}")).isEqualTo(1);
		// A drained queue stays at 0 rather than vanishing.
		assertThat(second.value("workgraph_ready_items{queue=\"mx-gauge-b\"}")).isZero();
		assertThat(second.value("workgraph_active_leases")).isEqualTo(2);
		assertThat(second.value("workgraph_open_attention_requests")).isEqualTo(1);
		assertThat(second.value("workgraph_gauge_sample_age_seconds")).isLessThan(60);
		assertThat(second.value("workgraph_scheduled_items")).isZero();
	}

	@Test
	void scheduledItemsAreAGaugeAndFailuresAnEnding() {
		Scrape before = scrape();
		createItem("later", "notBefore", "2099-01-01T00:00:00Z");
		createItem("flaky");
		JsonNode claim = claim("w");
		end(claim, Mutation.FAIL);
		JsonNode again = claim("w");
		Api.Response delayed = this.api.post("/leases/" + leaseId(again) + "/release",
				Map.of("epoch", epoch(again), "retryAfterSeconds", 600));
		assertThat(delayed.status()).as(delayed.toString()).isEqualTo(200);
		this.gauges.sample();
		Scrape after = scrape();
		assertThat(after.value("workgraph_scheduled_items")).isEqualTo(2);
		assertThat(after.delta(before, endings("failed"))).isEqualTo(1);
		assertThat(after.delta(before, endings("released"))).isEqualTo(1);
	}

	@Test
	void httpLatencyHasHistogramBuckets() {
		createItem("timed");
		claim("w");
		// The answer leaves whole before the request's observation is recorded: the
		// client can scrape first.
		Pattern bucket = Pattern
			.compile("http_server_requests_seconds_bucket\\{[^}]*method=\"POST\"[^}]*uri=\"/claims\"[^}]*le=\"0\\.001");
		Eventually.until("the claim's latency in the scrape", Duration.ofSeconds(5), Duration.ofMillis(20),
				() -> bucket.matcher(scrape().text()).find());
		Scrape scrape = scrape();
		assertThat(scrape.value("http_server_requests_seconds_count{error=\"none\",exception=\"none\","
				+ "method=\"POST\",outcome=\"SUCCESS\",status=\"201\",uri=\"/claims\"}"))
			.isGreaterThanOrEqualTo(1);
	}

	/**
	 * The dashboard (docs/grafana-dashboard.json) queries only series the service
	 * publishes, so it cannot silently show nothing after a rename.
	 */
	@Test
	void theDashboardQueriesOnlyPublishedSeries() throws Exception {
		createItem("for the latency series");
		claim("w");
		this.gauges.sample();
		JsonNode dashboard = JsonMapper.builder()
			.build()
			.readTree(Files.readString(Path.of("..", "docs", "grafana-dashboard.json")));
		Set<String> queried = new TreeSet<>();
		Matcher series = Pattern.compile("\\b((?:workgraph|http_server)_[a-z_]+)\\b")
			.matcher(dashboard.path("panels").toString());
		while (series.find()) {
			queried.add(series.group(1));
		}
		assertThat(queried).contains("workgraph_claims_total", "workgraph_lease_rejections_total",
				"workgraph_lease_endings_total", "workgraph_ready_items", "workgraph_open_attention_requests",
				"http_server_requests_seconds_bucket");
		String scrape = scrape().text();
		assertThat(queried).allSatisfy((name) -> assertThat(scrape).containsPattern("\n" + name + "[{ ]"));
	}

	private void end(JsonNode claim, Mutation mutation) {
		Api.Response ended = this.api.post(mutation.path(leaseId(claim)), mutation.body(epoch(claim)));
		assertThat(ended.status()).as(ended.toString()).isBetween(200, 201);
	}

	private static String endings(String outcome) {
		return "workgraph_lease_endings_total{outcome=\"" + outcome + "\"}";
	}

	private static String rejections(String code) {
		return "workgraph_lease_rejections_total{code=\"" + code + "\"}";
	}

	private Scrape scrape() {
		try {
			HttpResponse<String> response = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create(this.api.base() + "/actuator/prometheus")).build(),
						HttpResponse.BodyHandlers.ofString());
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("Content-Type"))
				.hasValueSatisfying((type) -> assertThat(type).startsWith("text/plain"));
			return new Scrape(response.body());
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** One scrape in the Prometheus text format. */
	record Scrape(String text) {

		/** The sample's value, 0 when the series is absent. */
		double value(String series) {
			Matcher sample = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE)
				.matcher(this.text);
			return sample.find() ? Double.parseDouble(sample.group(1)) : 0;
		}

		double delta(Scrape before, String series) {
			return value(series) - before.value(series);
		}

	}

}
