package dev.workgraph.tracing;

import java.util.List;

import org.springframework.boot.autoconfigure.AutoConfigurationImportFilter;
import org.springframework.boot.autoconfigure.AutoConfigurationMetadata;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * With tracing off ({@code management.tracing.export.enabled=false}, the default in
 * application.yml) the auto-configurations of Micrometer Tracing, OpenTelemetry and the
 * SQL spans are not applied at all: no tracer, no span per request, no proxy in front of
 * the pool. Spring Boot's own switch only stops the export: its tracer would still make
 * (and sample) a span for every request and every statement, and drop them at the end.
 */
public final class TracingOffFilter implements AutoConfigurationImportFilter, EnvironmentAware {

	/** The packages of the auto-configurations left out while tracing is off. */
	static final List<String> TRACING_PACKAGES = List.of("org.springframework.boot.micrometer.tracing.",
			"org.springframework.boot.opentelemetry.", "net.ttddyy.observation.");

	private boolean tracingOn;

	@Override
	public void setEnvironment(Environment environment) {
		this.tracingOn = environment.getProperty("management.tracing.export.enabled", Boolean.class, true);
	}

	@Override
	public boolean[] match(String[] autoConfigurationClasses, AutoConfigurationMetadata metadata) {
		boolean[] applied = new boolean[autoConfigurationClasses.length];
		for (int i = 0; i < applied.length; i++) {
			String name = autoConfigurationClasses[i];
			applied[i] = this.tracingOn || name == null || TRACING_PACKAGES.stream().noneMatch(name::startsWith);
		}
		return applied;
	}

}
