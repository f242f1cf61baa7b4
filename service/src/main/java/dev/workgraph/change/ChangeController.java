package dev.workgraph.change;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

import dev.workgraph.problem.InvalidRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /changes}: the change stream as server-sent events. Each event's {@code id}
 * is its seq, so a client that reconnects with {@code Last-Event-ID} (browsers do it by
 * themselves) continues right after the last event it received, on this instance or any
 * other ({@code after} says the same in the query, for clients that cannot set headers).
 * Without either the stream starts with what is published from now on. With
 * {@code follow=false} it sends what is already published and ends. The request's
 * (virtual) thread writes the stream until the client goes away or the service stops.
 */
@RestController
class ChangeController {

	/** How long a client waits before reconnecting after the stream broke. */
	static final int RETRY_MILLIS = 1000;

	private final ChangeFeed feed;

	private final ChangeProperties properties;

	private final JsonMapper json;

	ChangeController(ChangeFeed feed, ChangeProperties properties, JsonMapper json) {
		this.feed = feed;
		this.properties = properties;
		this.json = json;
	}

	@GetMapping(path = "/changes", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
	void stream(@RequestParam(required = false) String types, @RequestParam(required = false) String queue,
			@RequestParam(required = false) UUID itemId,
			@RequestHeader(name = "Last-Event-ID", required = false) String lastEventId,
			@RequestParam(name = "after", required = false) String after,
			@RequestParam(defaultValue = "true") boolean follow, HttpServletResponse response)
			throws IOException, InterruptedException {
		ChangeFilter filter = ChangeFilter.of(types, queue, itemId);
		long cursor = start((lastEventId != null) ? lastEventId : after,
				(lastEventId != null) ? "Last-Event-ID" : "after");
		response.setContentType(MediaType.TEXT_EVENT_STREAM_VALUE);
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		response.setHeader(HttpHeaders.CACHE_CONTROL, "no-cache, no-store");
		// Proxies that buffer responses (nginx) would hold events back.
		response.setHeader("X-Accel-Buffering", "no");
		// Without follow the stream ends at the head published when it began, read from
		// the
		// database: the instance's tail may not have read that far yet.
		long end = follow ? Long.MAX_VALUE : this.feed.currentHead();
		OutputStream out = response.getOutputStream();
		write(out, "retry: " + RETRY_MILLIS + "\n: stream from seq " + cursor + "\n\n");
		while (this.feed.isRunning()) {
			List<Change> page = this.feed.after(cursor);
			if (!page.isEmpty()) {
				StringBuilder events = new StringBuilder();
				for (Change change : page) {
					if (filter.matches(change)) {
						events.append("id: ").append(change.seq()).append("\nevent: ").append(change.type());
						events.append("\ndata: ").append(this.json.writeValueAsString(change)).append("\n\n");
					}
					cursor = change.seq();
				}
				if (!events.isEmpty()) {
					write(out, events.toString());
				}
				continue;
			}
			if (cursor >= end) {
				return;
			}
			if (!this.feed.awaitAfter(cursor, this.properties.keepAlive())) {
				// Also how a client that went away is noticed: the write fails.
				write(out, ": keep-alive\n\n");
			}
		}
	}

	private long start(String from, String name) {
		if (from == null) {
			return this.feed.currentHead();
		}
		try {
			long seq = Long.parseLong(from.strip());
			if (seq >= 0) {
				return seq;
			}
		}
		catch (NumberFormatException ex) {
			// Answered below.
		}
		throw new InvalidRequest(name, "must be the seq of a change (a non-negative integer)");
	}

	private static void write(OutputStream out, String text) throws IOException {
		out.write(text.getBytes(StandardCharsets.UTF_8));
		out.flush();
	}

}
