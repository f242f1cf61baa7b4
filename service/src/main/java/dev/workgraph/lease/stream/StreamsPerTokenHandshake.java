package dev.workgraph.lease.stream;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.Problems;

import org.springframework.http.MediaType;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.socket.WebSocketHandler;
import org.springframework.web.socket.server.HandshakeInterceptor;

/**
 * Refuses the upgrade, as 429 {@code too_many_streams}, when the token already holds as
 * many streams on this instance as it may: one leaked or hostile token must not take the
 * instance's memory and sessions. Handshakes of one token that race past this check are
 * settled when the stream opens ({@link WorkerStreams#opened}), by closing the extra one.
 */
class StreamsPerTokenHandshake implements HandshakeInterceptor {

	private final WorkerStreams streams;

	StreamsPerTokenHandshake(WorkerStreams streams) {
		this.streams = streams;
	}

	@Override
	public boolean beforeHandshake(ServerHttpRequest request, ServerHttpResponse response, WebSocketHandler handler,
			Map<String, Object> attributes) throws IOException {
		if (this.streams.hasRoom(WorkerStream.tokenOf(SecurityContextHolder.getContext().getAuthentication()))) {
			return true;
		}
		ProblemCode code = ProblemCode.TOO_MANY_STREAMS;
		response.setStatusCode(code.status());
		response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
		response.getBody()
			.write(Problems.json(code, detail(this.streams.maxPerToken())).getBytes(StandardCharsets.UTF_8));
		return false;
	}

	@Override
	public void afterHandshake(ServerHttpRequest request, ServerHttpResponse response, WebSocketHandler handler,
			Exception exception) {
	}

	static String detail(int max) {
		return "This token already has " + max + " worker streams open on this instance "
				+ "(workgraph.stream.max-streams-per-token); close one first, or use the HTTP endpoints";
	}

}
