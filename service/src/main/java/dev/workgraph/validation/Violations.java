package dev.workgraph.validation;

import jakarta.validation.ConstraintValidatorContext;

final class Violations {

	private Violations() {
	}

	/**
	 * Replaces the constraint's fixed message with the specific problem; true when there
	 * is none.
	 */
	static boolean reportIf(String problem, ConstraintValidatorContext context) {
		if (problem == null) {
			return true;
		}
		context.disableDefaultConstraintViolation();
		context.buildConstraintViolationWithTemplate(problem.replace("{", "\\{").replace("$", "\\$"))
			.addConstraintViolation();
		return false;
	}

}
