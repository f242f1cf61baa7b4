package dev.workgraph.problem;

import java.io.IOException;

/**
 * Thrown by the request stream once a body passes the size limit, whatever reads it; any
 * failure it causes is answered 413 {@code payload_too_large}.
 */
public final class BodyTooLarge extends IOException {

	public BodyTooLarge(long limit) {
		super("Request body exceeds " + limit + " bytes");
	}

	public static boolean isCauseOf(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof BodyTooLarge) {
				return true;
			}
		}
		return false;
	}

}
