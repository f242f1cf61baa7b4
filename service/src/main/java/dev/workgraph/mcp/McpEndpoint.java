package dev.workgraph.mcp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import dev.workgraph.access.Caller;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.HttpHeaders;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

/**
 * {@code /mcp}: the SDK's Streamable HTTP transport, with the sessions this service keeps
 * around it. A session belongs to the worker whose token opened it: a request of another
 * worker naming it is answered 404, as if it did not exist, and so is a request naming a
 * session that ended or was forgotten (MCP clients then start a new one). A session's
 * DELETE releases the lease it holds.
 */
class McpEndpoint extends HttpServlet {

	private final HttpServletStreamableServerTransportProvider transport;

	private final McpSessions sessions;

	McpEndpoint(HttpServletStreamableServerTransportProvider transport, McpSessions sessions) {
		this.transport = transport;
		this.sessions = sessions;
	}

	@Override
	protected void service(HttpServletRequest request, HttpServletResponse response)
			throws ServletException, IOException {
		String worker = Caller.currentWorker().orElse(null);
		String authorization = request.getHeader(org.springframework.http.HttpHeaders.AUTHORIZATION);
		String sessionId = request.getHeader(HttpHeaders.MCP_SESSION_ID);
		if (sessionId == null) {
			// An initialize: the session is known from the moment its id is set, before
			// the answer reaches the client, whose next request names it.
			this.transport.service(request, new HttpServletResponseWrapper(response) {
				@Override
				public void setHeader(String name, String value) {
					if (HttpHeaders.MCP_SESSION_ID.equalsIgnoreCase(name)) {
						McpEndpoint.this.sessions.open(value, worker, authorization);
					}
					super.setHeader(name, value);
				}
			});
			return;
		}
		McpSession session = this.sessions.find(sessionId).filter((known) -> known.securedAs(worker)).orElse(null);
		if (session == null) {
			sessionNotFound(response);
			return;
		}
		session.seen(authorization);
		this.transport.service(request, response);
		if ("DELETE".equals(request.getMethod()) && response.getStatus() == HttpServletResponse.SC_OK) {
			this.sessions.close(sessionId);
		}
	}

	private static void sessionNotFound(HttpServletResponse response) throws IOException {
		response.setStatus(HttpServletResponse.SC_NOT_FOUND);
		response.setContentType("application/json");
		response.getOutputStream()
			.write("""
					{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found: it ended or expired; start a new session"}}"""
				.getBytes(StandardCharsets.UTF_8));
	}

}
