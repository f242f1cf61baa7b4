package dev.workgraph.validation;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

class TextValidator implements ConstraintValidator<Text, String> {

	private int min;

	private int max;

	@Override
	public void initialize(Text annotation) {
		this.min = annotation.min();
		this.max = annotation.max();
	}

	@Override
	public boolean isValid(String value, ConstraintValidatorContext context) {
		if (value == null) {
			return true;
		}
		String problem = TextRules.problemWith(value);
		if (problem == null) {
			int length = TextRules.codePoints(value);
			if (length < this.min || length > this.max) {
				problem = (this.min == 0) ? "must be at most %d characters long".formatted(this.max)
						: "must be between %d and %d characters long".formatted(this.min, this.max);
			}
		}
		return Violations.reportIf(problem, context);
	}

}
