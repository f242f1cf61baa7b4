package dev.workgraph.web;

import java.util.UUID;

import org.apache.catalina.core.StandardHost;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.util.unit.DataSize;

@Configuration(proxyBeanMethods = false)
class WebConfiguration {

	@Bean
	FilterRegistrationBean<RequestSizeLimitFilter> requestSizeLimitFilter(HttpProperties properties) {
		FilterRegistrationBean<RequestSizeLimitFilter> registration = new FilterRegistrationBean<>(
				new RequestSizeLimitFilter(properties.maxRequestSize().toBytes()));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

	/**
	 * Requests Tomcat refuses before routing them get a problem too, not Tomcat's HTML
	 * page. The context is already attached to its host here, and the host installs its
	 * error report valve when it starts.
	 */
	@Bean
	TomcatContextCustomizer problemErrorReports() {
		return (context) -> {
			if (context.getParent() instanceof StandardHost host) {
				host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
			}
		};
	}

	/**
	 * A JSON value of the wrong type is a validation error (contract §5). Jackson by
	 * default turns numbers and booleans into strings (so {@code {"title": 1}} would
	 * create the title "1" and {@code {"reason": true}} the reason "true") and an empty
	 * string into a null UUID (so {@code {"parentId": ""}} would create a root item):
	 * both are refused here.
	 */
	@Bean
	JsonMapperBuilderCustomizer strictScalarTypes() {
		return (builder) -> builder
			.withCoercionConfig(LogicalType.Textual,
					(config) -> config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
						.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
			.withCoercionConfig(UUID.class,
					(config) -> config.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail));
	}

	/**
	 * @param maxRequestSize bodies larger than this are refused with 413 (contract §5: 10
	 * MiB)
	 */
	@ConfigurationProperties("workgraph.http")
	record HttpProperties(@DefaultValue("10MB") DataSize maxRequestSize) {
	}

}
