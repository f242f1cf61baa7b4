package dev.workgraph.sql;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.workgraph.testing.IntegrationTest;
import dev.workgraph.view.ItemViews;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@IntegrationTest
class GenericPlansTests {

	private static final String PLAN_CACHE_MODE = "select current_setting('plan_cache_mode')";

	private static final String JIT = "select current_setting('jit')";

	@Autowired
	private GenericPlans genericPlans;

	@Autowired
	private Transactions transactions;

	@Autowired
	private JdbcClient jdbc;

	@Autowired
	private HikariDataSource dataSource;

	@Test
	void theQueryRunsWithGenericPlansAndTheConnectionIsLeftAsItWas() {
		List<String> inside = this.genericPlans.query(PLAN_CACHE_MODE, Map.of(), (rs, n) -> rs.getString(1));

		assertThat(inside).containsExactly("force_generic_plan");
		// Whichever pooled connection answers: the setting ended with the query.
		for (int i = 0; i < 20; i++) {
			assertThat(this.jdbc.sql(PLAN_CACHE_MODE).query(String.class).single()).isEqualTo("auto");
		}
	}

	@Test
	void theQueryRunsWithoutJitAndTheConnectionIsLeftAsItWas() {
		String before = this.jdbc.sql(JIT).query(String.class).single();

		List<String> inside = this.genericPlans.query(JIT, Map.of(), (rs, n) -> rs.getString(1));

		assertThat(inside).containsExactly("off");
		for (int i = 0; i < 20; i++) {
			assertThat(this.jdbc.sql(JIT).query(String.class).single()).isEqualTo(before);
		}
	}

	/**
	 * On a server that can JIT-compile, with the threshold at zero so that every
	 * statement qualifies: the same statement is compiled when run plainly and not when
	 * run as a hot query.
	 */
	@Test
	void aHotQueryIsNotCompiledHoweverDearItLooks() {
		SingleConnectionDataSource connection = new SingleConnectionDataSource(this.dataSource.getJdbcUrl(),
				this.dataSource.getUsername(), this.dataSource.getPassword(), true);
		try {
			JdbcClient oneConnection = JdbcClient.create(connection);
			assumeTrue(oneConnection.sql("select pg_jit_available()").query(Boolean.class).single(),
					"this PostgreSQL has no JIT provider");
			oneConnection.sql("set jit = on").update();
			oneConnection.sql("set jit_above_cost = 0").update();
			GenericPlans hot = onItsOwn(connection, oneConnection);
			String explain = "explain (analyze, format json) select count(*) from work_items where title <> ''";

			String plain = oneConnection.sql(explain).query(String.class).single();
			String asHotQuery = hot.query(explain, Map.of(), (rs, n) -> rs.getString(1)).getFirst();

			assertThat(plain).as("the plain statement's plan").contains("\"JIT\"");
			assertThat(asHotQuery).as("the hot query's plan").doesNotContain("\"JIT\"");
		}
		finally {
			connection.destroy();
		}
	}

	@Test
	void aFailingQueryFailsAsItWouldAlone() {
		assertThatExceptionOfType(BadSqlGrammarException.class)
			.isThrownBy(() -> this.genericPlans.query("select * from no_such_table", Map.of(), (rs, n) -> 1));
		assertThat(this.jdbc.sql(PLAN_CACHE_MODE).query(String.class).single()).isEqualTo("auto");
	}

	@Test
	void insideTheCallersTransactionNothingIsSet() {
		String inside = this.transactions.inTransaction(() -> {
			String mode = this.genericPlans.query(PLAN_CACHE_MODE, Map.of(), (rs, n) -> rs.getString(1)).getFirst();
			// Still the caller's transaction, still usable.
			return mode + "/" + this.jdbc.sql(PLAN_CACHE_MODE).query(String.class).single();
		});

		assertThat(inside).isEqualTo("auto/auto");
	}

	/**
	 * On one connection, so that its prepared statements can be inspected: the view of
	 * two items, read again and again, is never planned for its arguments. Left to itself
	 * PostgreSQL plans the first five executions for their arguments (and, with an array
	 * of known length, every later one too).
	 */
	@Test
	void theItemViewIsNeverPlannedForItsArguments() {
		List<UUID> ids = List.of(item(), item());
		SingleConnectionDataSource connection = new SingleConnectionDataSource(this.dataSource.getJdbcUrl(),
				this.dataSource.getUsername(), this.dataSource.getPassword(), true);
		try {
			JdbcClient oneConnection = JdbcClient.create(connection);
			ItemViews views = new ItemViews(oneConnection, onItsOwn(connection, oneConnection));

			for (int i = 0; i < 12; i++) {
				assertThat(views.load(ids)).hasSize(2);
			}

			List<long[]> plans = oneConnection.sql("""
					select custom_plans, generic_plans from pg_prepared_statements
					where statement like '%select i.*%' and statement like '%where i.id = any(%'
					""")
				.query((rs, n) -> new long[] { rs.getLong("custom_plans"), rs.getLong("generic_plans") })
				.list();
			assertThat(plans).as("prepared view statements").hasSize(1);
			assertThat(plans.getFirst()[0]).as("custom plans").isZero();
			assertThat(plans.getFirst()[1]).as("generic plans").isPositive();
		}
		finally {
			connection.destroy();
		}
	}

	/** Hot queries on one connection, outside the application's pool. */
	private static GenericPlans onItsOwn(SingleConnectionDataSource connection, JdbcClient jdbc) {
		return new GenericPlans(new Transactions(new DataSourceTransactionManager(connection)), jdbc,
				new OneRoundTrip(new NamedParameterJdbcTemplate(connection)));
	}

	private UUID item() {
		UUID id = UUID.randomUUID();
		this.jdbc
			.sql("insert into work_items (id, title, status, closed_at) values (:id, 'viewed', 'completed', now())")
			.param("id", id)
			.update();
		return id;
	}

}
