package dev.workgraph.change;

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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A server-sent events client for tests: reads a stream on a thread of its own and hands
 * out its events (and comments) as they arrive.
 */
final class EventStream implements AutoCloseable {

	record Event(String id, String type, String data) {
	}

	private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();

	private final List<String> comments = new ArrayList<>();

	private final HttpResponse<InputStream> response;

	private final Thread reader;

	private EventStream(HttpResponse<InputStream> response) {
		this.response = response;
		this.reader = Thread.ofPlatform().daemon().start(this::read);
	}

	static EventStream open(HttpClient client, String url, String lastEventId) throws IOException {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream");
		if (lastEventId != null) {
			request.header("Last-Event-ID", lastEventId);
		}
		try {
			return new EventStream(client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException(ex);
		}
	}

	HttpResponse<InputStream> response() {
		return this.response;
	}

	/** The next event, or null when none arrives in time. */
	Event next(Duration within) throws InterruptedException {
		return this.events.poll(within.toMillis(), TimeUnit.MILLISECONDS);
	}

	synchronized List<String> comments() {
		return List.copyOf(this.comments);
	}

	private void read() {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(this.response.body(), StandardCharsets.UTF_8))) {
			String id = null;
			String type = null;
			StringBuilder data = new StringBuilder();
			String line;
			while ((line = lines.readLine()) != null) {
				if (line.isEmpty()) {
					if (!data.isEmpty()) {
						this.events.add(new Event(id, type, data.toString()));
					}
					id = null;
					type = null;
					data.setLength(0);
				}
				else if (line.startsWith(":")) {
					synchronized (this) {
						this.comments.add(line.substring(1).strip());
					}
				}
				else if (line.startsWith("id: ")) {
					id = line.substring(4);
				}
				else if (line.startsWith("event: ")) {
					type = line.substring(7);
				}
				else if (line.startsWith("data: ")) {
					data.append(line.substring(6));
				}
			}
		}
		catch (IOException ex) {
			// Closed.
		}
	}

	@Override
	public void close() throws IOException {
		this.response.body().close();
		this.reader.interrupt();
	}

}
