package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code payload_too_large} (413): the body is over the service's limit (10 MiB); or a
 * {@code metadata}, {@code context} or {@code result} is over 64 KiB. Send less.
 */
public class PayloadTooLarge extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public PayloadTooLarge(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
