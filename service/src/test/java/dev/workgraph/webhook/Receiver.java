package dev.workgraph.webhook;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A real HTTP receiver on 127.0.0.1 whose answers a test scripts: each request is
 * answered as the next scripted {@link Answer} says (then as the default), and recorded
 * with its headers and body. A request it answers 2xx in time is "accepted".
 */
final class Receiver implements AutoCloseable {

	/** How the receiver answers one request. */
	sealed interface Answer {

		/** Answers this status (a 3xx with this Location). */
		record Status(int status, String location) implements Answer {
		}

		/** Answers 200, but only after this long (past the sender's timeout). */
		record Hang(Duration delay) implements Answer {
		}

	}

	static Answer ok() {
		return new Answer.Status(200, null);
	}

	static Answer status(int status) {
		return new Answer.Status(status, null);
	}

	static Answer redirect(int status, String location) {
		return new Answer.Status(status, location);
	}

	static Answer hang(Duration delay) {
		return new Answer.Hang(delay);
	}

	/**
	 * One request as received.
	 *
	 * @param accepted whether it was answered 2xx without hanging
	 */
	record Received(String path, String id, String timestamp, String signature, String body, boolean accepted) {
	}

	private final HttpServer server;

	private final ConcurrentLinkedQueue<Answer> script = new ConcurrentLinkedQueue<>();

	private final List<Received> received = new CopyOnWriteArrayList<>();

	private volatile IntFunction<Answer> otherwise = (number) -> ok();

	Receiver() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		this.server.createContext("/", this::handle);
		this.server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
		this.server.start();
	}

	String url(String path) {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + path;
	}

	int port() {
		return this.server.getAddress().getPort();
	}

	/** The next requests are answered so, in order. */
	Receiver then(Answer... answers) {
		this.script.addAll(List.of(answers));
		return this;
	}

	/** Requests past the script are answered so (by their number, from 0). */
	Receiver otherwise(IntFunction<Answer> answer) {
		this.otherwise = answer;
		return this;
	}

	List<Received> received() {
		return new ArrayList<>(this.received);
	}

	List<Received> accepted() {
		return this.received.stream().filter(Received::accepted).toList();
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange; InputStream in = exchange.getRequestBody()) {
			String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			Answer answer = this.script.poll();
			if (answer == null) {
				answer = this.otherwise.apply(this.received.size());
			}
			String path = exchange.getRequestURI().getPath();
			String id = exchange.getRequestHeaders().getFirst("webhook-id");
			String timestamp = exchange.getRequestHeaders().getFirst("webhook-timestamp");
			String signature = exchange.getRequestHeaders().getFirst("webhook-signature");
			switch (answer) {
				case Answer.Hang hang -> {
					this.received.add(new Received(path, id, timestamp, signature, body, false));
					TimeUnit.MILLISECONDS.sleep(hang.delay().toMillis());
					exchange.sendResponseHeaders(200, -1);
				}
				case Answer.Status status -> {
					this.received.add(new Received(path, id, timestamp, signature, body,
							status.status() >= 200 && status.status() < 300));
					if (status.location() != null) {
						exchange.getResponseHeaders().add("Location", status.location());
					}
					exchange.sendResponseHeaders(status.status(), -1);
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (IOException ex) {
			// The sender gave up on this request (its timeout): nothing to answer.
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

}
