package dev.workgraph.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A subscriber of {@code GET /changes?types=lease.ended} that stays subscribed through
 * the run's faults: when its stream breaks (an instance killed, PostgreSQL restarting, a
 * pool exhausted) it reconnects to the next instance with {@code Last-Event-ID}, as a
 * real client behind a load balancer does, and records every event it receives, in the
 * order received, for {@link StreamChecker}.
 */
final class StreamSubscriber implements Runnable {

	/**
	 * One {@code lease.ended} event as received.
	 *
	 * @param outcome the lease's outcome as the event says
	 */
	record Ended(long seq, UUID itemId, UUID leaseId, long epoch, String outcome) {
	}

	private final List<ServiceInstance> instances;

	private final String token;

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(2))
		.build();

	private final JsonMapper json = JsonMapper.builder().build();

	private final List<Ended> received = new ArrayList<>();

	private volatile boolean running = true;

	private volatile long lastSeq;

	private volatile int reconnects;

	private volatile InputStream current;

	/**
	 * @param after the seq to start after (the head when the run began)
	 * @param token a token that may read the stream, null without access control
	 */
	StreamSubscriber(List<ServiceInstance> instances, long after, String token) {
		this.instances = instances;
		this.lastSeq = after;
		this.token = token;
	}

	@Override
	public void run() {
		int next = 0;
		while (this.running) {
			ServiceInstance instance = this.instances.get(next++ % this.instances.size());
			try {
				follow(instance);
			}
			catch (IOException | RuntimeException ex) {
				// Broken: reconnect, to the next instance.
			}
			catch (InterruptedException ex) {
				return;
			}
			if (this.running) {
				this.reconnects++;
				ServiceInstance.sleep(200);
			}
		}
	}

	/** The seq of the last event received. */
	long lastSeq() {
		return this.lastSeq;
	}

	int reconnects() {
		return this.reconnects;
	}

	synchronized List<Ended> received() {
		return List.copyOf(this.received);
	}

	void stop() {
		this.running = false;
		InputStream stream = this.current;
		if (stream != null) {
			try {
				stream.close();
			}
			catch (IOException ex) {
				// Closing anyway.
			}
		}
	}

	private void follow(ServiceInstance instance) throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(instance.base() + "/changes?types=lease.ended"))
			.header("Accept", "text/event-stream")
			.header("Last-Event-ID", Long.toString(this.lastSeq));
		if (this.token != null) {
			request.header("Authorization", "Bearer " + this.token);
		}
		HttpResponse<InputStream> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
		if (response.statusCode() != 200) {
			response.body().close();
			return;
		}
		this.current = response.body();
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
			String data = null;
			String line;
			while (this.running && (line = lines.readLine()) != null) {
				if (line.startsWith("data: ")) {
					data = line.substring(6);
				}
				else if (line.isEmpty() && data != null) {
					record(this.json.readTree(data));
					data = null;
				}
			}
		}
	}

	private synchronized void record(JsonNode change) {
		Ended ended = new Ended(change.path("seq").asLong(), UUID.fromString(change.path("itemId").asString()),
				UUID.fromString(change.path("leaseId").asString()), change.path("epoch").asLong(),
				change.path("data").path("outcome").asString());
		this.received.add(ended);
		this.lastSeq = ended.seq();
	}

}
