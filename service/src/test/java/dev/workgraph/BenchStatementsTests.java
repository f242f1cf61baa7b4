package dev.workgraph;

import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.sql.DataSource;

import dev.workgraph.sql.OneRoundTrip;
import dev.workgraph.testing.RepositoryRoot;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark (bench/run.sh) measures the service's own SQL: it reads the statement
 * constants named in bench/statements.properties out of the packaged jar and runs them
 * with pgbench as the raw ceiling. This test reads the same file and fails when a named
 * constant no longer exists, or when the hot paths (a lone claim, renew, complete, and
 * the reads that build their answers) run statements other than the ones the bench
 * measures, so the bench cannot silently keep measuring something the service stopped
 * running.
 */
@Import(BenchStatementsTests.RecordingDataSource.class)
class BenchStatementsTests extends ServiceTest {

	/**
	 * Every SQL text the service prepared, in order (the JDBC form, "?" placeholders).
	 */
	static final List<String> prepared = java.util.Collections.synchronizedList(new ArrayList<>());

	@BeforeEach
	void forgetEarlierStatements() {
		prepared.clear();
	}

	@Test
	void everyNamedStatementExists() throws Exception {
		Map<String, String> named = named();
		assertThat(named).containsKeys("claim", "genericPlans", "lockItem", "complete", "renew", "audit");
		for (var entry : named.entrySet()) {
			assertThat(statement(entry.getValue())).as(entry.getKey() + " = " + entry.getValue()).isNotBlank();
		}
	}

	@Test
	void aLoneClaimRunsTheMeasuredClaimStatementWhichAnswersTheViewItself() throws Exception {
		createItem("measured");
		prepared.clear();
		claim("bench-pin");
		assertThat(ran()).as("the claim, sent after its plan setting in the same round trip")
			.contains(jdbc("genericPlans") + OneRoundTrip.BETWEEN + jdbc("claim"));
		assertThat(ran()).as("no second round trip for the claim's view").doesNotContain(viewReads());
	}

	@Test
	void renewRunsTheMeasuredRenewStatement() throws Exception {
		createItem("measured");
		JsonNode claim = claim("bench-pin");
		prepared.clear();
		assertThat(this.api.post("/leases/" + leaseId(claim) + "/renew", Map.of("epoch", epoch(claim))).status())
			.isEqualTo(200);
		assertThat(ran()).contains(jdbc("renew"));
	}

	@Test
	void completeRunsTheMeasuredLockAndCompleteStatementsWhichAnswerTheViewThemselves() throws Exception {
		createItem("measured");
		JsonNode claim = claim("bench-pin");
		prepared.clear();
		assertThat(this.api.post("/leases/" + leaseId(claim) + "/complete", Map.of("epoch", epoch(claim))).status())
			.isEqualTo(200);
		List<String> ran = ran();
		assertThat(ran).as("the item locked, then the fenced completion, in one round trip")
			.contains(jdbc("lockItem") + OneRoundTrip.BETWEEN + jdbc("complete"));
		assertThat(ran).as("no second round trip for the completed item's view").doesNotContain(viewReads());
	}

	/** Every statement that reads item views on its own. */
	private static String[] viewReads() throws Exception {
		List<String> reads = new ArrayList<>();
		for (String field : List.of("ITEM_VIEW_BY_ID", "ITEM_VIEWS_BY_ID", "PARTS_OF_ITEM", "PARTS_OF_ITEMS")) {
			reads.add(NamedParameterUtils
				.parseSqlStatementIntoString(statement("dev.workgraph.view.ItemViews#" + field)));
		}
		return reads.toArray(String[]::new);
	}

	private static List<String> ran() {
		synchronized (prepared) {
			return new ArrayList<>(prepared);
		}
	}

	/** The named statement as JDBC receives it from JdbcClient. */
	private static String jdbc(String name) throws Exception {
		return NamedParameterUtils.parseSqlStatementIntoString(statement(named().get(name)));
	}

	/** "class#field" read the way the bench reads it: the static field's value. */
	private static String statement(String source) throws ReflectiveOperationException {
		Field field = Class.forName(source.substring(0, source.indexOf('#')))
			.getDeclaredField(source.substring(source.indexOf('#') + 1));
		field.setAccessible(true);
		return (String) field.get(null);
	}

	/** bench/statements.properties, found from the module directory up. */
	static Map<String, String> named() throws IOException {
		Path file = RepositoryRoot.path().resolve("bench/statements.properties");
		assertThat(file).exists();
		Properties properties = new Properties();
		try (Reader in = Files.newBufferedReader(file)) {
			properties.load(in);
		}
		Map<String, String> named = new LinkedHashMap<>();
		properties.stringPropertyNames().forEach((name) -> named.put(name, properties.getProperty(name).strip()));
		return named;
	}

	/** Wraps the pool so that every prepared SQL text is recorded. */
	@TestConfiguration(proxyBeanMethods = false)
	static class RecordingDataSource {

		@Bean
		static BeanPostProcessor recordPreparedStatements() {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String name) {
					if (!(bean instanceof DataSource dataSource)) {
						return bean;
					}
					return proxy(DataSource.class, dataSource, (target, method, args) -> {
						Object result = invoke(method, target, args);
						return (result instanceof Connection connection) ? recording(connection) : result;
					});
				}

			};
		}

		private static Connection recording(Connection connection) {
			return proxy(Connection.class, connection, (target, method, args) -> {
				if (method.getName().startsWith("prepare") && args != null && args.length > 0
						&& args[0] instanceof String sql) {
					prepared.add(sql);
				}
				return invoke(method, target, args);
			});
		}

		private interface Handler<T> {

			Object handle(T target, java.lang.reflect.Method method, Object[] args) throws Throwable;

		}

		@SuppressWarnings("unchecked")
		private static <T> T proxy(Class<T> type, T target, Handler<T> handler) {
			InvocationHandler h = (proxy, method, args) -> {
				if (method.getName().equals("unwrap") && args[0] instanceof Class<?> wanted
						&& wanted.isInstance(target)) {
					return target;
				}
				if (method.getName().equals("isWrapperFor") && args[0] instanceof Class<?> wanted
						&& wanted.isInstance(target)) {
					return true;
				}
				return handler.handle(target, method, args);
			};
			return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, h);
		}

		private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
			try {
				return method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		}

	}

}
