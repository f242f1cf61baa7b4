package dev.workgraph.access;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/**
 * A known token without the right to do this (403 {@code forbidden}). Thrown before
 * anything is written, and inside a transaction it rolls everything back.
 */
public class Forbidden extends RequestRejected {

	public Forbidden(String detail) {
		super(ProblemCode.FORBIDDEN, detail);
	}

}
