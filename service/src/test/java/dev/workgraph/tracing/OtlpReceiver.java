package dev.workgraph.tracing;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;

/**
 * An OTLP/HTTP receiver in the test's own JVM: what a collector would be sent, decoded
 * from protobuf with the protocol's own messages, kept for the test to read.
 */
final class OtlpReceiver implements AutoCloseable {

	private final HttpServer server;

	private final ConcurrentLinkedQueue<ReceivedSpan> spans = new ConcurrentLinkedQueue<>();

	private OtlpReceiver(HttpServer server) {
		this.server = server;
	}

	static OtlpReceiver start() {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
			OtlpReceiver receiver = new OtlpReceiver(server);
			server.createContext("/v1/traces", (exchange) -> {
				try (exchange) {
					byte[] body;
					try (InputStream in = "gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"))
							? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
						body = in.readAllBytes();
					}
					receiver.received(ExportTraceServiceRequest.parseFrom(body));
					exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
					exchange.sendResponseHeaders(200, -1);
				}
			});
			server.start();
			return receiver;
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	String endpoint() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort() + "/v1/traces";
	}

	List<ReceivedSpan> spans() {
		return new ArrayList<>(this.spans);
	}

	List<ReceivedSpan> spansOf(String traceId) {
		return this.spans.stream().filter((span) -> span.traceId().equals(traceId)).toList();
	}

	private void received(ExportTraceServiceRequest request) {
		for (ResourceSpans resource : request.getResourceSpansList()) {
			String service = attributes(resource.getResource().getAttributesList()).get("service.name");
			for (ScopeSpans scope : resource.getScopeSpansList()) {
				for (io.opentelemetry.proto.trace.v1.Span span : scope.getSpansList()) {
					this.spans.add(new ReceivedSpan(service, hex(span.getTraceId().toByteArray()),
							hex(span.getSpanId().toByteArray()), hex(span.getParentSpanId().toByteArray()),
							span.getName(), attributes(span.getAttributesList())));
				}
			}
		}
	}

	private static String hex(byte[] bytes) {
		return HexFormat.of().formatHex(bytes);
	}

	private static Map<String, String> attributes(List<KeyValue> attributes) {
		return attributes.stream()
			.collect(Collectors.toMap(KeyValue::getKey, (attribute) -> text(attribute.getValue()), (a, b) -> b));
	}

	private static String text(AnyValue value) {
		return switch (value.getValueCase()) {
			case STRING_VALUE -> value.getStringValue();
			case INT_VALUE -> Long.toString(value.getIntValue());
			case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
			case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
			default -> value.toString();
		};
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

	record ReceivedSpan(String service, String traceId, String spanId, String parentSpanId, String name,
			Map<String, String> attributes) {
	}

}
