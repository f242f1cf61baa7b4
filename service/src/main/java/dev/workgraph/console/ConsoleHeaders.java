package dev.workgraph.console;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The console renders text written by agents, which an attacker may control. These
 * headers make sure that even a rendering mistake cannot run anything: only the console's
 * own scripts and styles load (no inline script or style, no eval), the page talks only
 * to this service, it cannot be framed, and nothing leaks through the Referer header. The
 * session token lives in the tab's sessionStorage and goes out only as an Authorization
 * header, so no cookie exists to forge requests with.
 */
class ConsoleHeaders extends OncePerRequestFilter {

	static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
			+ "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; "
			+ "frame-ancestors 'none'";

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
		response.setHeader("X-Content-Type-Options", "nosniff");
		response.setHeader("X-Frame-Options", "DENY");
		response.setHeader("Referrer-Policy", "no-referrer");
		response.setHeader("Cross-Origin-Opener-Policy", "same-origin");
		// A new version of the console is picked up at the next load, never mixed with a
		// cached one.
		response.setHeader("Cache-Control", "no-cache");
		chain.doFilter(request, response);
	}

}
