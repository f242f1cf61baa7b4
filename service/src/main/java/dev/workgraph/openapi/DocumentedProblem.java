package dev.workgraph.openapi;

import dev.workgraph.problem.ProblemCode;

/**
 * A problem code as the API document lists it.
 *
 * @param code the stable {@code code} member
 * @param status its HTTP status
 * @param title its fixed title
 */
record DocumentedProblem(String code, int status, String title) {

	static DocumentedProblem of(ProblemCode code) {
		return new DocumentedProblem(code.code(), code.status().value(), code.title());
	}

}
