package dev.workgraph.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Reads what a statement's plan did, under EXPLAIN ANALYZE: how many rows its scans of a
 * table read, and how they found them.
 */
public final class QueryPlans {

	private QueryPlans() {
	}

	/**
	 * Runs the statement under EXPLAIN ANALYZE, after the settings the service runs
	 * before it in its transaction, and undoes it.
	 */
	public static JsonNode explainAndRollBack(PlatformTransactionManager transactionManager, JdbcClient jdbc,
			String statement, String... settings) {
		return explainAndRollBack(transactionManager, jdbc, statement, () -> {
			for (String setting : settings) {
				jdbc.sql(setting).query().singleRow();
			}
		});
	}

	/**
	 * Runs the statement under EXPLAIN ANALYZE after {@code before} (statistics or
	 * settings changed for this plan alone) in one transaction, and undoes both.
	 */
	public static JsonNode explainAndRollBack(PlatformTransactionManager transactionManager, JdbcClient jdbc,
			String statement, Runnable before) {
		TransactionTemplate rolledBack = new TransactionTemplate(transactionManager);
		String json = rolledBack.execute((status) -> {
			status.setRollbackOnly();
			before.run();
			return jdbc.sql("explain (analyze, format json) " + statement).query(String.class).single();
		});
		return planOf(json);
	}

	/**
	 * Runs the statement as the service does once its prepared statement is cached: under
	 * the generic plan, which cannot see the parameters' values. Each named parameter is
	 * given as a literal with its type ({@code "'{a}'::text[]"}); the statement is
	 * prepared with those types, executed under EXPLAIN ANALYZE, deallocated and undone.
	 */
	public static JsonNode explainGenericAndRollBack(PlatformTransactionManager transactionManager, JdbcClient jdbc,
			String statement, Map<String, String> arguments) {
		String prepared = statement;
		List<String> types = new ArrayList<>();
		List<String> values = new ArrayList<>();
		for (Map.Entry<String, String> argument : arguments.entrySet()) {
			String literal = argument.getValue();
			types.add(literal.substring(literal.lastIndexOf("::") + 2));
			values.add(literal);
			prepared = prepared.replaceAll("(?<![:\\w]):" + argument.getKey() + "\\b", "\\$" + values.size());
		}
		if (prepared.matches("(?s).*(?<![:\\w]):[a-zA-Z]\\w*.*")) {
			throw new IllegalArgumentException("A named parameter has no argument: " + prepared);
		}
		String name = "explained_generic";
		String prepare = "prepare %s(%s) as %s".formatted(name, String.join(", ", types), prepared);
		String execute = "explain (analyze, format json) execute %s(%s)".formatted(name, String.join(", ", values));
		TransactionTemplate rolledBack = new TransactionTemplate(transactionManager);
		String json = rolledBack.execute((status) -> {
			status.setRollbackOnly();
			jdbc.sql("select set_config('plan_cache_mode', 'force_generic_plan', true)").query().singleRow();
			jdbc.sql(prepare).update();
			try {
				return jdbc.sql(execute).query(String.class).single();
			}
			finally {
				// A prepared statement outlives the transaction: it belongs to the
				// session.
				jdbc.sql("deallocate " + name).update();
			}
		});
		return planOf(json);
	}

	/** The top plan node of what {@code EXPLAIN (FORMAT JSON)} printed. */
	public static JsonNode planOf(String explainJson) {
		return JsonMapper.builder().build().readTree(explainJson).get(0).get("Plan");
	}

	/**
	 * Rows that the plan's scans of a table read, over all their loops: those they
	 * returned and those their filters dropped.
	 */
	public static long rowsRead(JsonNode plan, String table) {
		return scanNodes(plan, table).stream()
			.mapToLong((node) -> (node.path("Actual Rows").asLong() + node.path("Rows Removed by Filter").asLong()
					+ node.path("Rows Removed by Index Recheck").asLong()) * node.path("Actual Loops").asLong())
			.sum();
	}

	/**
	 * Rows that the plan's scans of a table returned, over all their loops. Not what they
	 * read: a scan that filters drops rows it read (see {@link #rowsRead}).
	 */
	public static long rowsReturned(JsonNode plan, String table) {
		return scanNodes(plan, table).stream()
			.mapToLong((node) -> node.path("Actual Rows").asLong() * node.path("Actual Loops").asLong())
			.sum();
	}

	private static List<JsonNode> scanNodes(JsonNode plan, String table) {
		List<JsonNode> nodes = new ArrayList<>();
		collect(plan, nodes);
		return nodes.stream()
			.filter((node) -> table.equals(node.path("Relation Name").asString(null)))
			.filter((node) -> node.path("Node Type").asString().contains("Scan"))
			.toList();
	}

	/** The node types of the plan's scans of a table. */
	public static List<String> scansOf(JsonNode plan, String table) {
		return scanNodes(plan, table).stream().map((node) -> node.path("Node Type").asString()).toList();
	}

	private static void collect(JsonNode node, List<JsonNode> into) {
		into.add(node);
		node.path("Plans").forEach((child) -> collect(child, into));
	}

}
