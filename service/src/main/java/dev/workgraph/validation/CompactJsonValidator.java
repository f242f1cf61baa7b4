package dev.workgraph.validation;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import tools.jackson.databind.JsonNode;

class CompactJsonValidator implements ConstraintValidator<CompactJson, JsonNode> {

	private int maxBytes;

	private boolean objectOnly;

	@Override
	public void initialize(CompactJson annotation) {
		this.maxBytes = annotation.maxBytes();
		this.objectOnly = annotation.objectOnly();
	}

	@Override
	public boolean isValid(JsonNode value, ConstraintValidatorContext context) {
		// An explicit JSON null means the same as leaving the field out.
		if (value == null || value.isNull()) {
			return true;
		}
		String problem = null;
		if (this.objectOnly && !value.isObject()) {
			problem = "must be a JSON object";
		}
		if (problem == null) {
			problem = TextRules.problemWithin(value);
		}
		if (problem == null && TextRules.utf8Bytes(TextRules.compactJson(value)) > this.maxBytes) {
			problem = "must be at most %d bytes as compact JSON".formatted(this.maxBytes);
		}
		return Violations.reportIf(problem, context);
	}

}
