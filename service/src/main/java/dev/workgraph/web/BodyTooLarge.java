package dev.workgraph.web;

import java.io.IOException;

/** Thrown by the request stream once a body passes the size limit, whatever reads it. */
final class BodyTooLarge extends IOException {

	BodyTooLarge(long limit) {
		super("Request body exceeds " + limit + " bytes");
	}

	static boolean isCauseOf(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof BodyTooLarge) {
				return true;
			}
		}
		return false;
	}

}
