package dev.workgraph.tracing;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import dev.workgraph.client.Claim;
import dev.workgraph.client.ClaimRequest;
import dev.workgraph.client.WorkGraphClient;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.ServiceTest;
import dev.workgraph.tracing.OtlpReceiver.ReceivedSpan;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tracing on, exporting over OTLP/HTTP to a receiver in this JVM: the spans that arrive
 * continue the caller's W3C trace, name the lease they act on, and have the SQL
 * statements as children.
 *
 * <p>
 * The context is closed after the class: cached, it would go on exporting the background
 * loops' spans to a receiver that is gone, and log the failures into later tests' output.
 */
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class TracingTests extends ServiceTest {

	private static final OtlpReceiver receiver = OtlpReceiver.start();

	@Autowired
	private Tracer tracer;

	@Autowired
	private TraceHeaders traceHeaders;

	@DynamicPropertySource
	static void exportToTheReceiver(DynamicPropertyRegistry registry) {
		registry.add("management.tracing.export.enabled", () -> "true");
		registry.add("management.opentelemetry.tracing.export.otlp.endpoint", receiver::endpoint);
		registry.add("management.opentelemetry.tracing.export.schedule-delay", () -> "100ms");
	}

	@AfterAll
	static void stopReceiver() {
		receiver.close();
	}

	@Test
	void aClaimContinuesTheCallersTraceAndNamesItemLeaseEpochAndWorker() {
		UUID item = createItem("traced");
		Traceparent caller = Traceparent.sampled();

		Api.Response claimed = this.api.post("/claims", Map.of("workerId", "tracer-1"), caller.header());
		assertThat(claimed.status()).as(claimed.toString()).isEqualTo(201);

		ReceivedSpan server = serverSpan(caller);
		assertThat(server.service()).isEqualTo("work-graph");
		assertThat(server.attributes()).containsEntry(LeaseSpans.ITEM, item.toString())
			.containsEntry(LeaseSpans.LEASE, leaseId(claimed.body()).toString())
			.containsEntry(LeaseSpans.EPOCH, "1")
			.containsEntry(LeaseSpans.WORKER, "tracer-1");
		List<ReceivedSpan> statements = statementsUnder(server, caller);
		assertThat(statements).as("SQL statements as child spans").isNotEmpty();
		assertThat(statements).allSatisfy(
				(statement) -> assertThat(statement.attributes().keySet()).anyMatch((key) -> key.contains("query")));
	}

	@Test
	void aCompletionNamesTheLeaseAndTheClaimChainedToIt() {
		createItem("first");
		UUID second = createItem("second");
		JsonNode first = claim("tracer-2");
		Traceparent caller = Traceparent.sampled();

		Api.Response completed = this.api.post("/leases/" + leaseId(first) + "/complete",
				Map.of("epoch", epoch(first), "claimNext", Map.of()), caller.header());
		assertThat(completed.status()).as(completed.toString()).isEqualTo(200);

		ReceivedSpan server = serverSpan(caller);
		assertThat(server.attributes()).containsEntry(LeaseSpans.LEASE, leaseId(first).toString())
			.containsEntry(LeaseSpans.ITEM, itemId(first).toString())
			.containsEntry(LeaseSpans.EPOCH, Long.toString(epoch(first)));
		String next = completed.body().path("next").path("lease").path("id").asString();
		Eventually.until("the chained claim's span", Duration.ofSeconds(10), Duration.ofMillis(50),
				() -> receiver.spansOf(caller.traceId())
					.stream()
					.anyMatch((span) -> span.name().equals("workgraph.claim.next")
							&& span.parentSpanId().equals(server.spanId())
							&& next.equals(span.attributes().get(LeaseSpans.LEASE))
							&& second.toString().equals(span.attributes().get(LeaseSpans.ITEM))));
	}

	@Test
	void aBatchClaimHasAChildSpanForEachLease() {
		createItem("a");
		createItem("b");
		Traceparent caller = Traceparent.sampled();

		Api.Response claimed = this.api.post("/claims/batch", Map.of("workerId", "tracer-3", "limit", 5),
				caller.header());
		assertThat(claimed.status()).as(claimed.toString()).isEqualTo(201);

		ReceivedSpan server = serverSpan(caller);
		Eventually.until("a span for each granted lease", Duration.ofSeconds(10), Duration.ofMillis(50),
				() -> receiver.spansOf(caller.traceId())
					.stream()
					.filter((span) -> span.name().equals("workgraph.claim.batch.grant")
							&& span.parentSpanId().equals(server.spanId()))
					.count() == 2);
	}

	@Test
	void aCallerThatDidNotSampleItsTraceIsNotExported() throws InterruptedException {
		createItem("unsampled");
		Traceparent caller = Traceparent.notSampled();
		Traceparent marker = Traceparent.sampled();

		assertThat(this.api.post("/claims", Map.of("workerId", "tracer-4"), caller.header()).status()).isEqualTo(201);
		// A sampled request after it: once its span is in, the unsampled one would be
		// too.
		this.api.post("/claims", Map.of("workerId", "tracer-4"), marker.header());
		serverSpan(marker);

		assertThat(receiver.spansOf(caller.traceId())).isEmpty();
	}

	@Test
	void theJavaClientSendsItsCallersTraceContext() {
		UUID item = createItem("from the Java client");
		Traceparent caller = Traceparent.sampled();
		WorkGraphClient client = WorkGraphClient.builder(this.api.base())
			.traceparent(() -> caller.header().get("traceparent"))
			.build();

		Claim claimed = client.claim(ClaimRequest.forWorker("tracer-5")).orElseThrow();

		assertThat(serverSpan(caller).attributes()).containsEntry(LeaseSpans.ITEM, item.toString())
			.containsEntry(LeaseSpans.LEASE, claimed.lease().id().toString());
	}

	@Test
	void theServicesOwnCallsCarryTheCurrentSpansContext() {
		Span span = this.tracer.nextSpan().name("a tool call").start();
		try (Tracer.SpanInScope scope = this.tracer.withSpan(span)) {
			// Sampled: the last flag bit (OpenTelemetry also sets W3C level 2's
			// random-trace-id bit).
			assertThat(this.traceHeaders.current().get("traceparent"))
				.matches("00-" + span.context().traceId() + "-" + span.context().spanId() + "-0[13]");
		}
		finally {
			span.end();
		}
	}

	private static ReceivedSpan serverSpan(Traceparent caller) {
		Eventually.until("the request's span", Duration.ofSeconds(10), Duration.ofMillis(50),
				() -> receiver.spansOf(caller.traceId())
					.stream()
					.anyMatch((span) -> span.parentSpanId().equals(caller.spanId())));
		return receiver.spansOf(caller.traceId())
			.stream()
			.filter((span) -> span.parentSpanId().equals(caller.spanId()))
			.findFirst()
			.orElseThrow();
	}

	private static List<ReceivedSpan> statementsUnder(ReceivedSpan server, Traceparent caller) {
		return receiver.spansOf(caller.traceId())
			.stream()
			.filter((span) -> !span.spanId().equals(server.spanId()))
			.filter((span) -> span.name().startsWith("query") || span.name().contains("jdbc"))
			.toList();
	}

	/** A W3C trace context as a caller sends it. */
	record Traceparent(String traceId, String spanId, boolean isSampled) {

		static Traceparent sampled() {
			return random(true);
		}

		static Traceparent notSampled() {
			return random(false);
		}

		private static Traceparent random(boolean sampled) {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			return new Traceparent(String.format("%016x%016x", random.nextLong(), random.nextLong()),
					String.format("%016x", random.nextLong()), sampled);
		}

		Map<String, String> header() {
			return Map.of("traceparent", "00-" + this.traceId + "-" + this.spanId + (this.isSampled ? "-01" : "-00"));
		}

	}

}
