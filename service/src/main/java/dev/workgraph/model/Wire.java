package dev.workgraph.model;

import java.util.Locale;

/**
 * The model's enums travel as their lower-case names: in JSON, in SQL columns and in
 * query parameters ({@code ATTENTION_REQUESTED} is {@code attention_requested}).
 */
final class Wire {

	private Wire() {
	}

	static String name(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The constant with exactly this wire name; null for null. Throws
	 * IllegalArgumentException for any other text.
	 */
	static <E extends Enum<E>> E parse(Class<E> type, String value) {
		if (value == null) {
			return null;
		}
		E constant = Enum.valueOf(type, value.toUpperCase(Locale.ROOT));
		if (!name(constant).equals(value)) {
			throw new IllegalArgumentException("No " + type.getSimpleName() + " is called '" + value + "'");
		}
		return constant;
	}

}
