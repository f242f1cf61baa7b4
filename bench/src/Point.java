import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One point of the suite: what it measures, and what it adds to the results file, the table,
 * the targets and the summary line. A point keeps what it measured. {@link Bench#points}
 * registers it: a new point is its class and a line there ({@link RecordPoint} for one
 * whose figures are one record).
 */
interface Point {

	/** Measures the point on the run's main service, or on services of its own. */
	void run(Suite suite) throws Exception;

	/**
	 * Puts its records into the results file under their keys, null where it did not run:
	 * the file has the same keys in every mode.
	 */
	void results(Map<String, Object> into);

	/** Its lines in the table; none where it did not run. */
	void table(Consumer<String> line);

	/**
	 * Its targets, each a {@link Report#target} line, after those of the points that were
	 * there when the points became classes.
	 */
	default void targets(Consumer<String> line) {
	}

	/**
	 * Its fields in the summary line, {@code name=value} ("na" where it did not run), after
	 * those the line already has, which keep their order.
	 */
	default List<String> summary() {
		return List.of();
	}

	/**
	 * Whether it starts services of its own: it then runs once the main service has
	 * stopped, so that the two never share the machine.
	 */
	default boolean ownServices() {
		return false;
	}

}
