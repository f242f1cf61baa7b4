package dev.workgraph.change;

import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Eventually;
import dev.workgraph.testing.ServiceInstance;
import dev.workgraph.testing.ServiceTest;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A subscriber that reconnects with {@code Last-Event-ID} gets every change once, in
 * order, whether it comes back to the same instance, switches to another one, or comes
 * back to an instance that was restarted meanwhile, while changes keep being committed
 * all along (through both instances).
 */
class ChangeStreamAcrossInstancesTests extends ServiceTest {

	private static final Duration PROMPTLY = Duration.ofSeconds(30);

	private final HttpClient client = HttpClient.newHttpClient();

	@Autowired
	private ChangeLog changes;

	@Test
	void resumingOnAnotherInstanceAndAfterARestartLosesAndRepeatsNothing() throws Exception {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		long start = this.changes.head();
		List<Long> received = new ArrayList<>();
		AtomicBoolean writing = new AtomicBoolean(true);
		AtomicInteger written = new AtomicInteger();
		// Changes are committed the whole time, through this instance.
		Thread writer = Thread.ofPlatform().start(() -> {
			while (writing.get()) {
				createItem("written meanwhile " + written.incrementAndGet(), "queue", "across");
			}
		});
		ServiceInstance second = startSecond(database);
		try {
			// On this instance first, from the seq before the first write.
			read(this.api, start, received, 20);
			// Then on the other one, continuing after the last event received.
			read(second.api(), received.getLast(), received, 20);
			// The other one stops; it comes back while changes go on.
			second.close();
			second = startSecond(database);
			read(second.api(), received.getLast(), received, 20);
			// Back on this one.
			read(this.api, received.getLast(), received, 20);
		}
		finally {
			writing.set(false);
			writer.join();
			second.close();
		}
		// Each item written is two changes: created and ready.
		long last = start + 2L * written.get();
		Eventually.until("everything published", PROMPTLY, Duration.ofMillis(20), () -> this.changes.head() >= last);
		assertThat(this.changes.head()).isEqualTo(last);
		read(this.api, received.getLast(), received, (int) (last - received.getLast()));
		List<Long> expected = new ArrayList<>();
		for (long seq = start + 1; seq <= last; seq++) {
			expected.add(seq);
		}
		assertThat(received).as("every seq once, in order").isEqualTo(expected);
	}

	private static ServiceInstance startSecond(TestDatabase.Coordinates database) {
		return ServiceInstance.start("second-stream-instance", database.jdbcUrl(), database.username(),
				database.password(), "--workgraph.security.enabled=false");
	}

	/** Reads this many events after {@code lastEventId}, then hangs up. */
	private void read(Api instance, long lastEventId, List<Long> received, int count)
			throws IOException, InterruptedException {
		try (EventStream stream = EventStream.open(this.client, instance.base() + "/changes",
				String.valueOf(lastEventId))) {
			assertThat(stream.response().statusCode()).isEqualTo(200);
			for (int i = 0; i < count; i++) {
				EventStream.Event event = stream.next(PROMPTLY);
				assertThat(event).as("event %d of %d", i, count).isNotNull();
				received.add(Long.parseLong(event.id()));
			}
		}
	}

}
