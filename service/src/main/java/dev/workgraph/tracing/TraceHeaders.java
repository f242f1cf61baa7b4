package dev.workgraph.tracing;

import java.util.Map;
import java.util.TreeMap;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

/**
 * The W3C trace context ({@code traceparent}, {@code tracestate}) of the current span,
 * for the HTTP calls the service makes itself (the MCP server's calls to the API), so
 * that they continue the trace of the request that made them. Empty with tracing off.
 */
public interface TraceHeaders {

	/** Tracing is off: no headers. */
	TraceHeaders NONE = Map::of;

	/** The headers to send with an outgoing request made now, on this thread. */
	Map<String, String> current();

	/** Tracing on: the current span's context as the configured propagator writes it. */
	static TraceHeaders of(Tracer tracer, Propagator propagator) {
		return () -> {
			Span span = tracer.currentSpan();
			if (span == null) {
				return Map.of();
			}
			Map<String, String> headers = new TreeMap<>();
			propagator.inject(span.context(), headers, Map::put);
			return headers;
		};
	}

}
