import java.util.List;
import java.util.Map;

/** Just enough JSON writing for the results file (maps, lists, strings, numbers). */
final class Json {

	static String write(Object value) {
		StringBuilder out = new StringBuilder();
		write(value, out, "");
		return out.toString();
	}

	private static void write(Object v, StringBuilder out, String indent) {
		switch (v) {
			case null -> out.append("null");
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

}
