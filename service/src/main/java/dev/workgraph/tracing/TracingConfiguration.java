package dev.workgraph.tracing;

import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class TracingConfiguration {

	/**
	 * Spring Boot makes a {@link Tracer} only when tracing is on
	 * ({@code management.tracing.export.enabled}, off in application.yml): without one
	 * the features are given {@link LeaseSpans#NONE}, chosen here once, not tested per
	 * call.
	 */
	@Bean
	LeaseSpans leaseSpans(ObjectProvider<Tracer> tracer) {
		Tracer available = tracer.getIfAvailable();
		return (available == null || available == Tracer.NOOP) ? LeaseSpans.NONE : new TracedLeaseSpans(available);
	}

	/** The same choice for the trace context of the service's own outgoing calls. */
	@Bean
	TraceHeaders traceHeaders(ObjectProvider<Tracer> tracer, ObjectProvider<Propagator> propagator) {
		Tracer available = tracer.getIfAvailable();
		Propagator propagating = propagator.getIfAvailable();
		return (available == null || available == Tracer.NOOP || propagating == null) ? TraceHeaders.NONE
				: TraceHeaders.of(available, propagating);
	}

}
