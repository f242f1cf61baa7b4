package dev.workgraph.lease.stream;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.socket.config.annotation.EnableWebSocket;
import org.springframework.web.socket.config.annotation.WebSocketConfigurer;
import org.springframework.web.socket.config.annotation.WebSocketHandlerRegistry;
import org.springframework.web.socket.server.standard.ServletServerContainerFactoryBean;

/**
 * The worker stream at {@value #PATH}, on the service's own port, behind Spring Security
 * like every other path (workers only: the handshake carries the bearer token).
 */
@Configuration(proxyBeanMethods = false)
@EnableWebSocket
class WorkerStreamConfiguration implements WebSocketConfigurer {

	static final String PATH = "/worker-stream";

	/**
	 * A message may carry what a request body may (10 MiB, docs/http-api.md), plus its
	 * envelope; a larger one closes the stream (1009, message too big). Counted in
	 * characters, as the handler puts a message's fragments together.
	 */
	static final int MAX_MESSAGE_BYTES = 10 * 1024 * 1024 + 64 * 1024;

	/**
	 * What the container reads a message in, per fragment. Tomcat allocates a session's
	 * buffer whole when it opens: sized for the largest message, every stream cost 20 MiB
	 * of heap and a dozen streams exhausted a 256 MiB service.
	 */
	static final int FRAGMENT_BUFFER_CHARS = 8 * 1024;

	private final WorkerStreamHandler handler;

	private final WorkerStreams streams;

	WorkerStreamConfiguration(WorkerStreamHandler handler, WorkerStreams streams) {
		this.handler = handler;
		this.streams = streams;
	}

	@Override
	public void registerWebSocketHandlers(WebSocketHandlerRegistry registry) {
		registry.addHandler(this.handler, PATH)
			.addInterceptors(new CallerHandshake(), new StreamsPerTokenHandshake(this.streams));
	}

	@Bean
	static ServletServerContainerFactoryBean webSocketContainer() {
		ServletServerContainerFactoryBean container = new ServletServerContainerFactoryBean();
		container.setMaxTextMessageBufferSize(FRAGMENT_BUFFER_CHARS);
		container.setMaxBinaryMessageBufferSize(8 * 1024);
		return container;
	}

}
