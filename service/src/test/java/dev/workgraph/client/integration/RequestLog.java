package dev.workgraph.client.integration;

import java.io.IOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The service's own record of every request it received (method, path, status, arrival),
 * so that a test proves from the server side that a client never sent something, e.g. the
 * completion of a lease it had lost.
 */
@TestConfiguration(proxyBeanMethods = false)
public class RequestLog {

	private final List<Entry> entries = new CopyOnWriteArrayList<>();

	@Bean
	FilterRegistrationBean<OncePerRequestFilter> requestLogFilter() {
		OncePerRequestFilter filter = new OncePerRequestFilter() {

			@Override
			protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
					throws ServletException, IOException {
				long arrived = System.nanoTime();
				try {
					chain.doFilter(request, response);
				}
				finally {
					RequestLog.this.entries
						.add(new Entry(request.getMethod(), request.getRequestURI(), response.getStatus(), arrived));
				}
			}

		};
		FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>(filter);
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

	public void clear() {
		this.entries.clear();
	}

	public List<Entry> entries() {
		return List.copyOf(this.entries);
	}

	/** Every request about this lease ({@code /leases/{id}/...}). */
	public List<Entry> ofLease(UUID leaseId) {
		String prefix = "/leases/" + leaseId;
		return this.entries.stream().filter((entry) -> entry.path().startsWith(prefix)).toList();
	}

	/** The writes sent for this lease other than renewals. */
	public List<Entry> endingWritesOf(UUID leaseId) {
		return ofLease(leaseId).stream()
			.filter((entry) -> entry.method().equals("POST") && !entry.path().endsWith("/renew"))
			.toList();
	}

	/** One request as the service saw it. */
	public record Entry(String method, String path, int status, long arrivedAtNanos) {

		@Override
		public String toString() {
			return this.method + " " + this.path + " → " + this.status;
		}

	}

}
