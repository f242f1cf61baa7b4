package dev.workgraph.console;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * {@code /console} is the console's page; its scripts and styles are static resources
 * under {@code /console/} (src/main/resources/static/console), served as they are.
 */
@Configuration(proxyBeanMethods = false)
class ConsoleConfiguration implements WebMvcConfigurer {

	static final String PAGE = "/console/index.html";

	@Override
	public void addViewControllers(ViewControllerRegistry registry) {
		registry.addViewController("/console").setViewName("forward:" + PAGE);
		registry.addViewController("/console/").setViewName("forward:" + PAGE);
	}

	@Bean
	FilterRegistrationBean<ConsoleHeaders> consoleHeaders() {
		FilterRegistrationBean<ConsoleHeaders> registration = new FilterRegistrationBean<>(new ConsoleHeaders());
		registration.addUrlPatterns("/console", "/console/*");
		return registration;
	}

}
