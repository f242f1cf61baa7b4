package dev.workgraph.web;

import org.apache.catalina.core.StandardHost;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.util.unit.DataSize;

@Configuration(proxyBeanMethods = false)
class WebConfiguration {

	@Bean
	StrictJsonHttpMessageConverter strictJsonHttpMessageConverter(JsonMapper mapper) {
		return new StrictJsonHttpMessageConverter(mapper);
	}

	/** First of all: every answer, even a refusal by a later filter, carries its id. */
	@Bean
	FilterRegistrationBean<RequestIdFilter> requestIdFilter() {
		FilterRegistrationBean<RequestIdFilter> registration = new FilterRegistrationBean<>(new RequestIdFilter());
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

	@Bean
	FilterRegistrationBean<RequestSizeLimitFilter> requestSizeLimitFilter(HttpProperties properties) {
		FilterRegistrationBean<RequestSizeLimitFilter> registration = new FilterRegistrationBean<>(
				new RequestSizeLimitFilter(properties.maxRequestSize().toBytes()));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
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
	 * @param maxRequestSize bodies larger than this are refused with 413
	 * (docs/http-api.md, "Sizes and limits": 10 MiB)
	 */
	@ConfigurationProperties("workgraph.http")
	record HttpProperties(@DefaultValue("10MB") DataSize maxRequestSize) {
	}

}
