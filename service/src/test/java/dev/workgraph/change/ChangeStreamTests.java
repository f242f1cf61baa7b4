package dev.workgraph.change;

import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /changes}: server-sent events as changes commit, filters, and resuming with
 * {@code Last-Event-ID} without loss or duplicates.
 */
class ChangeStreamTests extends ServiceTest {

	private static final Duration PROMPTLY = Duration.ofSeconds(10);

	private final HttpClient client = HttpClient.newHttpClient();

	private final JsonMapper json = JsonMapper.builder().build();

	@Autowired
	private ChangeLog changes;

	@Test
	void aCommittedChangeArrivesAsAnEventNamedByItsSeq() throws Exception {
		try (EventStream stream = open("/changes", null)) {
			assertThat(stream.response().statusCode()).isEqualTo(200);
			assertThat(stream.response().headers().firstValue("Content-Type"))
				.hasValueSatisfying((type) -> assertThat(type).startsWith("text/event-stream"));
			UUID item = createItem("streamed", "queue", "stream");
			EventStream.Event created = stream.next(PROMPTLY);
			assertThat(created).isNotNull();
			assertThat(created.type()).isEqualTo("item.created");
			JsonNode data = this.json.readTree(created.data());
			assertThat(data.path("seq").asLong()).isEqualTo(Long.parseLong(created.id()));
			assertThat(data.path("type").asString()).isEqualTo("item.created");
			assertThat(data.path("itemId").asString()).isEqualTo(item.toString());
			assertThat(data.path("queue").asString()).isEqualTo("stream");
			assertThat(data.path("at").asString()).isNotBlank();
			assertThat(data.path("data").path("title").asString()).isEqualTo("streamed");
			assertThat(stream.next(PROMPTLY).type()).isEqualTo("item.ready");
		}
	}

	@Test
	void aReconnectWithLastEventIdContinuesWithoutLossOrDuplicate() throws Exception {
		List<Long> received = new ArrayList<>();
		long start = this.changes.head();
		try (EventStream first = open("/changes", null)) {
			for (int i = 0; i < 3; i++) {
				createItem("before the break " + i, "queue", "resume");
			}
			for (int i = 0; i < 2; i++) {
				received.add(Long.parseLong(first.next(PROMPTLY).id()));
			}
		}
		// Written while nobody listens.
		for (int i = 0; i < 2; i++) {
			createItem("during the break " + i, "queue", "resume");
		}
		try (EventStream second = open("/changes", String.valueOf(received.getLast()))) {
			for (int i = 0; i < 8; i++) {
				EventStream.Event event = second.next(PROMPTLY);
				assertThat(event).as("event %d after the reconnect", i).isNotNull();
				received.add(Long.parseLong(event.id()));
			}
			assertThat(second.next(Duration.ofMillis(300))).as("nothing more").isNull();
		}
		assertThat(received).containsExactly(start + 1, start + 2, start + 3, start + 4, start + 5, start + 6,
				start + 7, start + 8, start + 9, start + 10);
	}

	@Test
	void filtersSendOnlyTheChangesAsked() throws Exception {
		UUID other = createItem("other queue", "queue", "elsewhere");
		try (EventStream byType = open("/changes?types=item.created,lease.granted&queue=filtered", null);
				EventStream byItem = open("/changes?itemId=" + other, null)) {
			createItem("filtered", "queue", "filtered");
			createItem("not this queue", "queue", "elsewhere");
			claim(java.util.Map.of("workerId", "w", "queues", List.of("filtered")));
			claim(java.util.Map.of("workerId", "w", "queues", List.of("elsewhere")));
			assertThat(byType.next(PROMPTLY).type()).isEqualTo("item.created");
			assertThat(byType.next(PROMPTLY).type()).isEqualTo("lease.granted");
			assertThat(byType.next(Duration.ofMillis(500))).isNull();
			EventStream.Event granted = byItem.next(PROMPTLY);
			assertThat(granted.type()).isEqualTo("lease.granted");
			assertThat(this.json.readTree(granted.data()).path("itemId").asString()).isEqualTo(other.toString());
		}
	}

	@Test
	void withoutFollowTheStreamSendsWhatIsPublishedAndEnds() {
		long start = this.changes.head();
		createItem("published", "queue", "once");
		dev.workgraph.testing.Eventually.until("published", PROMPTLY, Duration.ofMillis(20),
				() -> this.changes.head() >= start + 2);
		Api.Response response = this.api.get("/changes?follow=false&after=" + start);
		assertThat(response.status()).isEqualTo(200);
		assertThat(response.raw().body()).contains("id: " + (start + 1) + "\nevent: item.created\n")
			.contains("id: " + (start + 2) + "\nevent: item.ready\n");
	}

	@Test
	void badFiltersAndResumePointsAreRefused() {
		for (String bad : List.of("/changes?types=item.exploded", "/changes?queue=", "/changes?after=-1",
				"/changes?after=ten")) {
			Api.Response response = this.api.get(bad);
			assertThat(response.status()).as(bad + ": " + response).isEqualTo(422);
			assertThat(response.code()).isEqualTo("validation_failed");
		}
	}

	private EventStream open(String path, String lastEventId) throws IOException {
		return EventStream.open(this.client, this.api.base() + path, lastEventId);
	}

}
