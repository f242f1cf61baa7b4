import java.lang.reflect.Field;

/**
 * Prints one of the service's SQL statements, read from the compiled class, so that
 * benchmark and plan scripts run exactly what the service runs.
 *
 * <p>
 * Usage: {@code java -cp <service classes and libs> PrintStatement.java <class> <field>}
 */
public class PrintStatement {

	public static void main(String[] args) throws ReflectiveOperationException {
		Field statement = Class.forName(args[0]).getDeclaredField(args[1]);
		statement.setAccessible(true);
		System.out.print(statement.get(null));
	}

}
