package dev.workgraph.problem;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.hibernate.validator.constraints.Range;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * Says why a request body is not the JSON an endpoint takes, from the type of Jackson's
 * exception, its path and the parser's state, not from the wording of its messages. A
 * body is read in two steps, and the step tells the two kinds of failure apart:
 * <ul>
 * <li>reading the document ({@link #ofDocument}): bad syntax, a limit exceeded, or more
 * after the first value. The body is not one acceptable JSON document: 400
 * {@code malformed_request}. (An unpaired surrogate in a key is the exception: the rules
 * refuse it as text, 422, as they do in a value.)</li>
 * <li>binding the document to the request's type ({@link #ofBinding}): valid JSON of the
 * wrong shape, 422 {@code validation_failed} naming the field.</li>
 * </ul>
 */
public final class JsonProblems {

	private JsonProblems() {
	}

	/**
	 * Why the body could not be read as one JSON document.
	 * @param ex what the parser threw
	 * @param parser the parser that read the body, in the state in which it failed
	 */
	public static RequestRejected ofDocument(JacksonException ex, JsonParser parser) {
		return switch (ex) {
			case StreamConstraintsException limit -> malformed(beyondLimit(parser));
			// With the trailing-token check on, a document that parsed but does not end
			// there is all that reading a tree can mismatch.
			case MismatchedInputException trailing ->
				malformed("The request body is not valid JSON: it continues after the first JSON value");
			case StreamReadException read when isUnpairedSurrogateInName(read) ->
				new InvalidRequest(pathOfEnclosingObject(parser), "must not contain an unpaired surrogate");
			default ->
				malformed("The request body is not valid JSON: " + withoutSourceLocation(ex.getOriginalMessage()));
		};
	}

	/** Why a JSON document does not bind to the request's type. */
	public static RequestRejected ofBinding(JacksonException ex) {
		String field = fieldPath(ex);
		return switch (ex) {
			case UnrecognizedPropertyException unknown ->
				new InvalidRequest(field, "is not a known field" + known(unknown));
			case InputCoercionException outOfRange ->
				new InvalidRequest(field, outOfRange(ex, outOfRange.getTargetType()));
			case MismatchedInputException mismatch ->
				new InvalidRequest(field.isEmpty() ? "body" : field, expectation(mismatch.getTargetType()));
			case StreamConstraintsException limit -> malformed(beyondLimit(null));
			case StreamReadException read ->
				malformed("The request body is not valid JSON: " + withoutSourceLocation(ex.getOriginalMessage()));
			default -> new InvalidRequest(field.isEmpty() ? "body" : field, "is not valid");
		};
	}

	/**
	 * Refuses a document with a number too large for a double ({@code 1e999999}) anywhere
	 * in it: the parser reads it as infinity, which would be kept as the text
	 * {@code "Infinity"}, a changed value. 422 naming where it is.
	 */
	public static void requireFiniteNumbers(JsonNode document) {
		String where = infiniteNumberIn(document, "");
		if (where != null) {
			throw new InvalidRequest(where.isEmpty() ? "body" : where,
					"is a number too large to keep (at most about 1.8e308)");
		}
	}

	private static String infiniteNumberIn(JsonNode node, String path) {
		if (node.isNumber()) {
			return Double.isInfinite(node.doubleValue()) ? path : null;
		}
		if (node.isArray()) {
			for (int i = 0; i < node.size(); i++) {
				String found = infiniteNumberIn(node.get(i), path + "[" + i + "]");
				if (found != null) {
					return found;
				}
			}
		}
		if (node.isObject()) {
			for (Map.Entry<String, JsonNode> field : node.properties()) {
				String found = infiniteNumberIn(field.getValue(),
						path.isEmpty() ? field.getKey() : path + "." + field.getKey());
				if (found != null) {
					return found;
				}
			}
		}
		return null;
	}

	/**
	 * The fields the object takes, so that a misspelt one can be put right without the
	 * documentation at hand.
	 */
	private static String known(UnrecognizedPropertyException unknown) {
		if (unknown.getKnownPropertyIds() == null || unknown.getKnownPropertyIds().isEmpty()) {
			return "";
		}
		return "; it takes " + unknown.getKnownPropertyIds()
			.stream()
			.map(String::valueOf)
			.sorted()
			.collect(java.util.stream.Collectors.joining(", "));
	}

	private static RequestRejected malformed(String detail) {
		return new RequestRejected(ProblemCode.MALFORMED_REQUEST, detail);
	}

	/**
	 * Which limit a document exceeded: the nesting depth when the parser stopped deeper
	 * than allowed, else one of the sizes (of a number, a key, a string).
	 */
	private static String beyondLimit(JsonParser parser) {
		if (parser != null) {
			int maxDepth = parser.streamReadConstraints().getMaxNestingDepth();
			if (parser.streamReadContext().getNestingDepth() > maxDepth) {
				return "The request body nests JSON deeper than " + maxDepth + " levels";
			}
		}
		return "The request body exceeds a JSON size limit";
	}

	/**
	 * JSON allows any backslash-u escape, but Jackson refuses an unpaired surrogate in a
	 * property name while parsing, with no exception type of its own; its message is all
	 * that tells this case apart. The rules count an unpaired surrogate in any string,
	 * keys included, as a validation error, like one in a value.
	 */
	private static boolean isUnpairedSurrogateInName(StreamReadException ex) {
		String message = ex.getOriginalMessage();
		return message != null && message.contains("surrogate") && message.contains("in property name");
	}

	/**
	 * Where the bad key is, as a field path: the innermost object is the one whose key
	 * failed, so its own current name (an earlier key, if any) is left out.
	 */
	private static String pathOfEnclosingObject(JsonParser parser) {
		StringBuilder path = new StringBuilder();
		TokenStreamContext context = (parser != null) ? parser.streamReadContext() : null;
		for (TokenStreamContext at = (context != null) ? context.getParent() : null; at != null; at = at.getParent()) {
			if (at.inArray()) {
				path.insert(0, "[" + at.getCurrentIndex() + "]");
			}
			else if (at.inObject() && at.currentName() != null) {
				path.insert(0, "." + at.currentName());
			}
		}
		String field = (path.length() > 0 && path.charAt(0) == '.') ? path.substring(1) : path.toString();
		return field.isEmpty() ? "body" : field;
	}

	/**
	 * The parser's reason without the source location Jackson may append: the caller
	 * needs only the reason.
	 */
	private static String withoutSourceLocation(String message) {
		return (message == null) ? "unreadable"
				: message.replaceAll("\\s*\\([^()]*\\[Source: [^\\]]*\\]\\)|\\s*at \\[Source: [^\\]]*\\]", "").strip();
	}

	/**
	 * The path of the failing value as the client wrote it, e.g.
	 * {@code children[3].title}.
	 */
	private static String fieldPath(JacksonException ex) {
		StringBuilder path = new StringBuilder();
		for (JacksonException.Reference reference : ex.getPath()) {
			if (reference.getPropertyName() != null) {
				path.append(path.isEmpty() ? "" : ".").append(reference.getPropertyName());
			}
			else if (reference.getIndex() >= 0) {
				path.append('[').append(reference.getIndex()).append(']');
			}
		}
		return path.toString();
	}

	/**
	 * A number too large for its field's type, said with the field's bounds: those of its
	 * {@code @Range} when it has one, else those of the type.
	 */
	private static String outOfRange(JacksonException ex, Class<?> type) {
		Range range = declaredRange(ex);
		if (range != null) {
			return "must be between %d and %d".formatted(range.min(), range.max());
		}
		if (type == Integer.class || type == int.class) {
			return "must be between %d and %d".formatted(Integer.MIN_VALUE, Integer.MAX_VALUE);
		}
		if (type == Long.class || type == long.class) {
			return "must be between %d and %d".formatted(Long.MIN_VALUE, Long.MAX_VALUE);
		}
		return "is out of range";
	}

	/** The {@code @Range} of the field the failing value was meant for, if any. */
	private static Range declaredRange(JacksonException ex) {
		List<JacksonException.Reference> path = ex.getPath();
		if (path.isEmpty() || path.getLast().getPropertyName() == null) {
			return null;
		}
		JacksonException.Reference last = path.getLast();
		Object from = last.from();
		Class<?> owner = (from instanceof Class<?> type) ? type : (from != null) ? from.getClass() : null;
		if (owner == null) {
			return null;
		}
		try {
			return owner.getDeclaredField(last.getPropertyName()).getAnnotation(Range.class);
		}
		catch (NoSuchFieldException notAField) {
			return null;
		}
	}

	private static String expectation(Class<?> type) {
		if (type == null) {
			return "has the wrong type";
		}
		if (type == UUID.class) {
			return "must be a UUID";
		}
		if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
			return "must be an integer";
		}
		if (type == Boolean.class || type == boolean.class) {
			return "must be true or false";
		}
		if (type == String.class) {
			return "must be a string";
		}
		if (List.class.isAssignableFrom(type) || type.isArray()) {
			return "must be an array";
		}
		if (JsonNode.class.isAssignableFrom(type) || type.isRecord() || Map.class.isAssignableFrom(type)) {
			return "must be a JSON object";
		}
		return "has the wrong type";
	}

}
