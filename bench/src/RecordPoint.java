import java.util.Map;
import java.util.function.Consumer;

/**
 * A point whose figures are one record under one key of the results file, its class's name
 * without "Point" ({@code fanIn} for FanInPoint): its run sets {@link #result}, and it prints
 * its lines from that record once it has one.
 */
abstract class RecordPoint<R extends Record> implements Point {

	/** What the point measured; null until it has run. */
	R result;

	String key() {
		String name = getClass().getSimpleName().replaceFirst("Point$", "");
		return Character.toLowerCase(name.charAt(0)) + name.substring(1);
	}

	R result() {
		return this.result;
	}

	@Override
	public void results(Map<String, Object> into) {
		into.put(key(), this.result);
	}

	@Override
	public void table(Consumer<String> line) {
		if (this.result != null) {
			table(this.result, line);
		}
	}

	/** Its lines in the table, for what it measured. */
	abstract void table(R result, Consumer<String> line);

}
