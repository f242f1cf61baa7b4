package dev.workgraph.web;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
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

	@Bean
	FilterRegistrationBean<RequestSizeLimitFilter> requestSizeLimitFilter(HttpProperties properties) {
		FilterRegistrationBean<RequestSizeLimitFilter> registration = new FilterRegistrationBean<>(
				new RequestSizeLimitFilter(properties.maxRequestSize().toBytes()));
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

	/**
	 * @param maxRequestSize bodies larger than this are refused with 413 (contract §5: 10
	 * MiB)
	 */
	@ConfigurationProperties("workgraph.http")
	record HttpProperties(@DefaultValue("10MB") DataSize maxRequestSize) {
	}

}
