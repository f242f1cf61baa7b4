package dev.workgraph.lease.stream;

import java.util.Map;

import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.socket.WebSocketHandler;
import org.springframework.web.socket.server.HandshakeInterceptor;

/**
 * Keeps who opened the stream: the access rules let the handshake in with a worker's
 * bearer token (or anyone, with access control off), and every message of the stream is
 * then handled as that caller's request would be.
 */
class CallerHandshake implements HandshakeInterceptor {

	static final String AUTHENTICATION = CallerHandshake.class.getName() + ".authentication";

	@Override
	public boolean beforeHandshake(ServerHttpRequest request, ServerHttpResponse response, WebSocketHandler handler,
			Map<String, Object> attributes) {
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		if (authentication != null) {
			attributes.put(AUTHENTICATION, authentication);
		}
		return true;
	}

	@Override
	public void afterHandshake(ServerHttpRequest request, ServerHttpResponse response, WebSocketHandler handler,
			Exception exception) {
	}

}
