package dev.workgraph.problem;

/**
 * One reason a request failed validation, reported in the problem's {@code errors} list.
 *
 * @param field the JSON path of the offending value, e.g. {@code children[3].title}
 * @param message what is wrong with it
 */
public record FieldError(String field, String message) {
}
