package dev.workgraph.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import dev.workgraph.problem.BodyTooLarge;
import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Caps request bodies (over 10 MiB is 413 {@code payload_too_large}; docs/http-api.md,
 * "Sizes and limits"). A declared Content-Length over the cap is refused before reading;
 * a chunked body is counted as it is read and fails the moment it passes the cap. Tomcat
 * then discards the rest of the body (up to {@code server.tomcat.max-swallow-size}) so
 * that the client, still sending, does receive the 413.
 */
class RequestSizeLimitFilter extends OncePerRequestFilter {

	private final long maxBytes;

	RequestSizeLimitFilter(long maxBytes) {
		this.maxBytes = maxBytes;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (request.getContentLengthLong() > this.maxBytes) {
			response.setStatus(ProblemCode.PAYLOAD_TOO_LARGE.status().value());
			response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			response.setCharacterEncoding(StandardCharsets.UTF_8.name());
			response.getWriter()
				.write(Problems.json(ProblemCode.PAYLOAD_TOO_LARGE,
						"The request body is larger than the limit of " + this.maxBytes + " bytes"));
			return;
		}
		chain.doFilter(new LimitedRequest(request, this.maxBytes), response);
	}

	private static final class LimitedRequest extends HttpServletRequestWrapper {

		private final long maxBytes;

		private ServletInputStream limited;

		LimitedRequest(HttpServletRequest request, long maxBytes) {
			super(request);
			this.maxBytes = maxBytes;
		}

		@Override
		public ServletInputStream getInputStream() throws IOException {
			if (this.limited == null) {
				this.limited = new LimitedInputStream(super.getInputStream(), this.maxBytes);
			}
			return this.limited;
		}

	}

	private static final class LimitedInputStream extends ServletInputStream {

		private final ServletInputStream delegate;

		private final long maxBytes;

		private long read;

		LimitedInputStream(ServletInputStream delegate, long maxBytes) {
			this.delegate = delegate;
			this.maxBytes = maxBytes;
		}

		@Override
		public int read() throws IOException {
			int b = this.delegate.read();
			if (b >= 0) {
				count(1);
			}
			return b;
		}

		@Override
		public int read(byte[] buffer, int offset, int length) throws IOException {
			int n = this.delegate.read(buffer, offset, length);
			if (n > 0) {
				count(n);
			}
			return n;
		}

		private void count(int n) throws BodyTooLarge {
			this.read += n;
			if (this.read > this.maxBytes) {
				throw new BodyTooLarge(this.maxBytes);
			}
		}

		@Override
		public boolean isFinished() {
			return this.delegate.isFinished();
		}

		@Override
		public boolean isReady() {
			return this.delegate.isReady();
		}

		@Override
		public void setReadListener(ReadListener listener) {
			this.delegate.setReadListener(listener);
		}

	}

}
