package dev.workgraph.validation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

/**
 * Text the service can store: between {@link #min()} and {@link #max()} Unicode code
 * points, with no NUL character and no unpaired surrogate. {@code null} is valid (combine
 * with {@code @NotNull}).
 */
@Documented
@Constraint(validatedBy = TextValidator.class)
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE_USE })
@Retention(RetentionPolicy.RUNTIME)
public @interface Text {

	int min() default 0;

	int max();

	String message() default "is not acceptable text";

	Class<?>[] groups() default {};

	Class<? extends Payload>[] payload() default {};

}
