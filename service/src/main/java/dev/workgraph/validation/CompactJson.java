package dev.workgraph.validation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

/**
 * A JSON value the service can store: at most {@link #maxBytes()} UTF-8 bytes as compact
 * JSON, no NUL or unpaired surrogate in any key or string, and a JSON object when
 * {@link #objectOnly()}. {@code null} is valid.
 */
@Documented
@Constraint(validatedBy = CompactJsonValidator.class)
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE_USE })
@Retention(RetentionPolicy.RUNTIME)
public @interface CompactJson {

	int maxBytes() default 65_536;

	boolean objectOnly() default true;

	String message() default "is not acceptable JSON";

	Class<?>[] groups() default {};

	Class<? extends Payload>[] payload() default {};

}
