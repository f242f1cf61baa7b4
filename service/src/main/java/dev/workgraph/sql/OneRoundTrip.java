package dev.workgraph.sql;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.RowMapperResultSetExtractor;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * Two queries sent together and answered together: one network round trip instead of two.
 * The driver sends both (one Parse/Bind/Execute each) with a single Sync; PostgreSQL
 * still runs them one after the other, the second with a snapshot taken after the first,
 * and stops at the first that fails. Outside a transaction the two are one implicit
 * transaction, which is what {@link GenericPlans} needs: a setting local to it, in force
 * for the second query, without a transaction of Spring's around it (its BEGIN and COMMIT
 * round trips and connection handling). Inside a transaction they are two statements of
 * it.
 */
@Repository
public class OneRoundTrip {

	/** Between the two queries' texts, as the driver receives them. */
	public static final String BETWEEN = ";\n";

	private final NamedParameterJdbcTemplate named;

	public OneRoundTrip(NamedParameterJdbcTemplate named) {
		this.named = named;
	}

	/**
	 * The rows of {@code first} and of {@code second}, run with the same named
	 * parameters.
	 */
	public <A, B> Answers<A, B> query(String first, RowMapper<A> firstRows, String second, RowMapper<B> secondRows,
			Map<String, ?> params) {
		return this.named.execute(first + BETWEEN + second, params, (PreparedStatement statement) -> {
			statement.execute();
			List<A> a = rows(statement, firstRows);
			if (!statement.getMoreResults()) {
				throw new IllegalStateException("No rows came back from " + second);
			}
			return new Answers<>(a, rows(statement, secondRows));
		});
	}

	/**
	 * The rows of {@code sql}, sent behind {@code settings} (a {@link LocalSettings}
	 * query, whose row says nothing) in the same round trip.
	 */
	public <T> List<T> queryAfter(String settings, String sql, RowMapper<T> rows, Map<String, ?> params) {
		return query(settings, (rs, n) -> null, sql, rows, params).second();
	}

	private static <T> List<T> rows(PreparedStatement statement, RowMapper<T> mapper) throws SQLException {
		try (ResultSet result = statement.getResultSet()) {
			return new RowMapperResultSetExtractor<>(mapper).extractData(result);
		}
	}

	/** The rows of each query, in the order they came back. */
	public record Answers<A, B>(List<A> first, List<B> second) {
	}

}
