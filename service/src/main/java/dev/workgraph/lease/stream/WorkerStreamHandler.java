package dev.workgraph.lease.stream;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.workgraph.access.Caller;
import dev.workgraph.lease.LeaseProperties;
import dev.workgraph.lease.ending.LeaseCalls;
import dev.workgraph.problem.InvalidRequest;
import dev.workgraph.problem.JsonProblems;
import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.Problems;
import dev.workgraph.problem.RequestRejected;
import dev.workgraph.web.RequestBodies;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionException;
import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.TextMessage;
import org.springframework.web.socket.WebSocketSession;
import org.springframework.web.socket.handler.ConcurrentWebSocketSessionDecorator;
import org.springframework.web.socket.handler.TextWebSocketHandler;

/**
 * The worker stream's messages (docs/worker-stream.md). Each message is handled on a
 * virtual thread of its own, as the request it stands for would be on its request thread
 * (as the caller who opened the stream), so that one worker's concurrent writes are
 * committed together with everyone else's (group commit); a stream has at most
 * {@link WorkerStream#MAX_IN_FLIGHT} messages in hand, and is not read from while it has.
 * Every request message is answered by an {@code answer} carrying its {@code ref}: the
 * HTTP status and body its request would have got, or the problem.
 */
@Component
class WorkerStreamHandler extends TextWebSocketHandler {

	private static final String STREAM = WorkerStream.class.getName();

	/** A message's fragments so far, while its last has not come. */
	private static final String PARTIAL = WorkerStreamHandler.class.getName() + ".partial";

	/** How long a send may take before the worker counts as not reading. */
	private static final int SEND_TIME_LIMIT_MILLIS = 10_000;

	/**
	 * What may wait to be sent to a worker that reads slowly before its stream closes.
	 */
	private static final int SEND_BUFFER_LIMIT_BYTES = 32 * 1024 * 1024;

	private final LeaseCalls calls;

	private final StreamGrants grants;

	private final WorkerStreams streams;

	private final LeaseProperties properties;

	private final RequestBodies bodies;

	private final JsonMapper json;

	private final ExecutorService messages = Executors.newVirtualThreadPerTaskExecutor();

	WorkerStreamHandler(LeaseCalls calls, StreamGrants grants, WorkerStreams streams, LeaseProperties properties,
			RequestBodies bodies, JsonMapper json) {
		this.calls = calls;
		this.grants = grants;
		this.streams = streams;
		this.properties = properties;
		this.bodies = bodies;
		this.json = json;
	}

	@Override
	public void afterConnectionEstablished(WebSocketSession session) {
		WebSocketSession out = new ConcurrentWebSocketSessionDecorator(session, SEND_TIME_LIMIT_MILLIS,
				SEND_BUFFER_LIMIT_BYTES);
		Authentication authentication = (Authentication) session.getAttributes().get(CallerHandshake.AUTHENTICATION);
		WorkerStream stream = new WorkerStream(out, authentication, this.streams.generation());
		session.getAttributes().put(STREAM, stream);
		if (!this.streams.opened(stream)) {
			stream.close(WorkerStream.TOO_MANY_STREAMS);
		}
	}

	/** Messages arrive in fragments of the container's buffer; see {@link #assembled}. */
	@Override
	public boolean supportsPartialMessages() {
		return true;
	}

	@Override
	protected void handleTextMessage(WebSocketSession session, TextMessage message)
			throws InterruptedException, IOException {
		WorkerStream stream = (WorkerStream) session.getAttributes().get(STREAM);
		String text = assembled(session, message);
		if (text == null) {
			return;
		}
		stream.takeTurn();
		this.messages.execute(() -> {
			try {
				handle(stream, text);
			}
			finally {
				stream.turnDone();
			}
		});
	}

	/**
	 * The whole message once its last fragment has come, else null: fragments wait in the
	 * session's own buffer, which grows only as far as a message needs, up to
	 * {@link WorkerStreamConfiguration#MAX_MESSAGE_BYTES}. A larger message closes the
	 * stream with 1009, as the container would.
	 */
	private static String assembled(WebSocketSession session, TextMessage fragment) throws IOException {
		StringBuilder partial = (StringBuilder) session.getAttributes().get(PARTIAL);
		if (partial == null && fragment.isLast()) {
			return fragment.getPayload();
		}
		if (partial == null) {
			partial = new StringBuilder(fragment.getPayloadLength() * 2);
			session.getAttributes().put(PARTIAL, partial);
		}
		if (partial.length() + fragment.getPayloadLength() > WorkerStreamConfiguration.MAX_MESSAGE_BYTES) {
			session.getAttributes().remove(PARTIAL);
			session.close(CloseStatus.TOO_BIG_TO_PROCESS);
			return null;
		}
		partial.append(fragment.getPayload());
		if (!fragment.isLast()) {
			return null;
		}
		session.getAttributes().remove(PARTIAL);
		return partial.toString();
	}

	@Override
	public void afterConnectionClosed(WebSocketSession session, CloseStatus status) {
		WorkerStream stream = (WorkerStream) session.getAttributes().get(STREAM);
		if (stream != null) {
			stream.closed();
			this.grants.stop(stream);
			this.streams.closed(stream);
		}
	}

	private void handle(WorkerStream stream, String text) {
		JsonNode ref = null;
		try {
			JsonNode message = parse(text);
			ref = message.get("ref");
			String type = message.path("type").isString() ? message.get("type").asString() : null;
			if (type == null) {
				throw new RequestRejected(ProblemCode.MALFORMED_REQUEST, "A message needs a 'type' (a string)");
			}
			if (!tokenHolds(stream, type)) {
				return; // closed: nothing more is done for it
			}
			SecurityContext context = SecurityContextHolder.createEmptyContext();
			context.setAuthentication(stream.authentication());
			SecurityContextHolder.setContext(context);
			try {
				switch (type) {
					case "hello" -> answer(stream, ref, 200, hello(stream, body(message)));
					case "credit" -> credit(stream, message);
					default -> {
						LeaseCalls.Answer answer = this.calls.call(type, leaseId(message), body(message));
						answer(stream, ref, answer.status(), answer.body());
					}
				}
			}
			finally {
				SecurityContextHolder.clearContext();
			}
		}
		catch (RuntimeException ex) {
			Map<String, Object> problem = Problems.of(ex);
			stream.send(this.json
				.writeValueAsString(new Answered("answer", ref, (Integer) problem.get("status"), null, problem)));
		}
	}

	/**
	 * {@code hello}: who the pushed claims are for and what they take, settled as
	 * {@code POST /claims} settles them (a worker token claims as its own worker, and
	 * only from the queues it may claim from); then leases are pushed as credits allow.
	 */
	private Welcome hello(WorkerStream stream, JsonNode body) {
		Hello hello = this.bodies.bind(body, Hello.class);
		String worker = Caller.currentWorker().orElse(null);
		String workerId;
		if (worker == null) {
			if (hello.workerId() == null) {
				throw new InvalidRequest("workerId", "must not be null");
			}
			workerId = hello.workerId();
		}
		else {
			Caller.requireActingAs((hello.workerId() != null) ? hello.workerId() : worker,
					"claim as worker " + hello.workerId());
			workerId = worker;
		}
		List<String> queues = Caller.claimableQueues(hello.queues());
		int seconds = this.properties.leaseSeconds(hello.leaseSeconds());
		WorkerStream.Claiming claiming = new WorkerStream.Claiming(workerId, queues, seconds);
		if (!stream.hello(claiming)) {
			throw new RequestRejected(ProblemCode.MALFORMED_REQUEST, "This stream has already said hello");
		}
		this.grants.start(stream, claiming);
		return new Welcome(workerId, queues, seconds);
	}

	/**
	 * Whether the stream's token still holds for this message. A credit is kept when the
	 * token cannot be read because the database is away: it only lets leases be pushed,
	 * and every grant checks and locks the token in its own transaction, whereas the
	 * failure's answer carries no ref for the worker to place, and the worker would wait
	 * for a push that never comes.
	 */
	private boolean tokenHolds(WorkerStream stream, String type) {
		try {
			return this.streams.tokenHolds(stream);
		}
		catch (DataAccessException | TransactionException ex) {
			if (!"credit".equals(type)) {
				throw ex;
			}
			return !stream.revoked();
		}
	}

	/** {@code credit}: the worker can take this many more leases (fewer, if negative). */
	private void credit(WorkerStream stream, JsonNode message) {
		JsonNode credits = message.get("credits");
		if (credits == null || !credits.isInt() || Math.abs(credits.asInt()) > WorkerStream.MAX_CREDITS) {
			throw new InvalidRequest("credits", "must be a whole number between -10000 and 10000");
		}
		if (stream.claiming() == null) {
			throw new RequestRejected(ProblemCode.MALFORMED_REQUEST, "Say hello before giving credits");
		}
		stream.credit(credits.asInt());
	}

	/**
	 * A message's JSON, judged as a request body is: strict syntax, nesting limits,
	 * finite numbers.
	 */
	private JsonNode parse(String text) {
		JsonNode message;
		try (JsonParser parser = this.json.createParser(text)) {
			try {
				message = this.json.readTree(parser);
			}
			catch (JacksonException ex) {
				throw JsonProblems.ofDocument(ex, parser);
			}
		}
		if (message == null || !message.isObject()) {
			throw new RequestRejected(ProblemCode.MALFORMED_REQUEST, "A message is a JSON object");
		}
		JsonProblems.requireFiniteNumbers(message);
		return message;
	}

	/** The request's body: required, as the HTTP endpoints require theirs. */
	private static JsonNode body(JsonNode message) {
		JsonNode body = message.get("body");
		if (body == null || body.isNull()) {
			throw new RequestRejected(ProblemCode.MALFORMED_REQUEST, "The message has no body");
		}
		return body;
	}

	/** The lease a write is for; malformed or missing, like a malformed id in a path. */
	private static UUID leaseId(JsonNode message) {
		JsonNode id = message.get("leaseId");
		try {
			return UUID.fromString((id != null && id.isString()) ? id.asString() : "");
		}
		catch (IllegalArgumentException ex) {
			throw new RequestRejected(ProblemCode.NOT_FOUND,
					"A message for a lease names it by its id, in 'leaseId'; this one names none");
		}
	}

	private void answer(WorkerStream stream, JsonNode ref, int status, Object body) {
		stream.send(this.json.writeValueAsString(new Answered("answer", ref, status, body, null)));
	}

	/**
	 * The answer to a request message: its {@code ref}, and what its HTTP request would
	 * have answered.
	 */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	record Answered(String type, JsonNode ref, int status, Object body, Map<String, Object> problem) {
	}

	/** The answer to {@code hello}: what the stream's pushed claims take. */
	record Welcome(String workerId, List<String> queues, int leaseSeconds) {
	}

}
