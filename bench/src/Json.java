import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for the bench: writes records (component by component, in declaration
 * order), maps, lists, strings and numbers; reads what the generators print (wrk's and the
 * peer's result lines, the token endpoint's answer) into maps, lists, strings, doubles,
 * booleans and nulls.
 */
final class Json {

	private Json() {
	}

	static String write(Object value) {
		StringBuilder out = new StringBuilder();
		write(value, out, "");
		return out.toString();
	}

	private static void write(Object v, StringBuilder out, String indent) {
		switch (v) {
			case null -> out.append("null");
			case Record r -> {
				Map<String, Object> fields = new LinkedHashMap<>();
				for (RecordComponent c : r.getClass().getRecordComponents()) {
					try {
						c.getAccessor().setAccessible(true);
						fields.put(c.getName(), c.getAccessor().invoke(r));
					}
					catch (ReflectiveOperationException ex) {
						throw new IllegalStateException(ex);
					}
				}
				write(fields, out, indent);
			}
			case Map<?, ?> m -> {
				out.append("{");
				String inner = indent + "  ";
				boolean first = true;
				for (var e : m.entrySet()) {
					out.append(first ? "\n" : ",\n").append(inner);
					string(String.valueOf(e.getKey()), out);
					out.append(": ");
					write(e.getValue(), out, inner);
					first = false;
				}
				out.append(first ? "}" : "\n" + indent + "}");
			}
			case List<?> l -> {
				out.append("[");
				for (int i = 0; i < l.size(); i++) {
					out.append((i == 0) ? "" : ", ");
					write(l.get(i), out, indent);
				}
				out.append("]");
			}
			case Double d when d.isNaN() || d.isInfinite() -> out.append("null");
			case Number n -> out.append(n);
			case Boolean b -> out.append(b);
			case Enum<?> e -> string(e.name().toLowerCase(java.util.Locale.ROOT), out);
			default -> string(v.toString(), out);
		}
	}

	private static void string(String s, StringBuilder out) {
		out.append('"');
		for (char c : s.toCharArray()) {
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				case '\n' -> out.append("\\n");
				case '\t' -> out.append("\\t");
				default -> {
					if (c < 0x20) {
						out.append(String.format("\\u%04x", (int) c));
					}
					else {
						out.append(c);
					}
				}
			}
		}
		out.append('"');
	}

	/** Parses one JSON value; numbers come back as Double. */
	static Object parse(String text) {
		Reader r = new Reader(text);
		Object v = r.value();
		r.space();
		if (r.at < text.length()) {
			throw r.fail("trailing text");
		}
		return v;
	}

	/** {@code parse(text)} as an object, for answers known to be objects. */
	@SuppressWarnings("unchecked")
	static Map<String, Object> object(String text) {
		return (Map<String, Object>) parse(text);
	}

	private static final class Reader {

		final String s;

		int at;

		Reader(String s) {
			this.s = s;
		}

		void space() {
			while (this.at < this.s.length() && Character.isWhitespace(this.s.charAt(this.at))) {
				this.at++;
			}
		}

		IllegalArgumentException fail(String why) {
			return new IllegalArgumentException(why + " at " + this.at + " in "
					+ this.s.substring(0, Math.min(this.s.length(), 300)));
		}

		Object value() {
			space();
			if (this.at >= this.s.length()) {
				throw fail("unexpected end");
			}
			char c = this.s.charAt(this.at);
			return switch (c) {
				case '{' -> object();
				case '[' -> array();
				case '"' -> string();
				case 't' -> literal("true", Boolean.TRUE);
				case 'f' -> literal("false", Boolean.FALSE);
				case 'n' -> literal("null", null);
				default -> number();
			};
		}

		Object literal(String word, Object value) {
			if (!this.s.startsWith(word, this.at)) {
				throw fail("expected " + word);
			}
			this.at += word.length();
			return value;
		}

		Map<String, Object> object() {
			Map<String, Object> m = new LinkedHashMap<>();
			this.at++;
			space();
			if (this.s.charAt(this.at) == '}') {
				this.at++;
				return m;
			}
			while (true) {
				space();
				String key = string();
				space();
				expect(':');
				m.put(key, value());
				space();
				if (this.s.charAt(this.at) == ',') {
					this.at++;
					continue;
				}
				expect('}');
				return m;
			}
		}

		List<Object> array() {
			List<Object> l = new ArrayList<>();
			this.at++;
			space();
			if (this.s.charAt(this.at) == ']') {
				this.at++;
				return l;
			}
			while (true) {
				l.add(value());
				space();
				if (this.s.charAt(this.at) == ',') {
					this.at++;
					continue;
				}
				expect(']');
				return l;
			}
		}

		void expect(char c) {
			if (this.at >= this.s.length() || this.s.charAt(this.at) != c) {
				throw fail("expected '" + c + "'");
			}
			this.at++;
		}

		String string() {
			expect('"');
			StringBuilder out = new StringBuilder();
			while (true) {
				char c = this.s.charAt(this.at++);
				if (c == '"') {
					return out.toString();
				}
				if (c != '\\') {
					out.append(c);
					continue;
				}
				char e = this.s.charAt(this.at++);
				switch (e) {
					case 'n' -> out.append('\n');
					case 't' -> out.append('\t');
					case 'r' -> out.append('\r');
					case 'b' -> out.append('\b');
					case 'f' -> out.append('\f');
					case 'u' -> {
						out.append((char) Integer.parseInt(this.s.substring(this.at, this.at + 4), 16));
						this.at += 4;
					}
					default -> out.append(e);
				}
			}
		}

		Double number() {
			int start = this.at;
			while (this.at < this.s.length() && "+-0123456789.eE".indexOf(this.s.charAt(this.at)) >= 0) {
				this.at++;
			}
			if (start == this.at) {
				throw fail("unexpected character");
			}
			return Double.parseDouble(this.s.substring(start, this.at));
		}

	}

}
