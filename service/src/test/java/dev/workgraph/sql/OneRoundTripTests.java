package dev.workgraph.sql;

import java.util.Map;

import dev.workgraph.testing.IntegrationTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@IntegrationTest
class OneRoundTripTests {

	private static final String WRITE = "insert into round_trip_probe (v) values (:v) returning v";

	private static final String COUNT = "select count(*) from round_trip_probe where v = :v";

	@Autowired
	private OneRoundTrip oneRoundTrip;

	@Autowired
	private Transactions transactions;

	@Autowired
	private JdbcClient jdbc;

	@BeforeEach
	void probeTable() {
		this.jdbc.sql("create table if not exists round_trip_probe (v int primary key)").update();
		this.jdbc.sql("truncate round_trip_probe").update();
	}

	@Test
	void eachQueryAnswersItsOwnRowsInOrderAndTheSecondSeesTheFirstsWrite() {
		OneRoundTrip.Answers<Integer, Long> answers = this.oneRoundTrip.query(WRITE, (rs, n) -> rs.getInt(1), COUNT,
				(rs, n) -> rs.getLong(1), Map.of("v", 7));

		assertThat(answers.first()).containsExactly(7);
		assertThat(answers.second()).containsExactly(1L);
		assertThat(count(7)).as("committed").isEqualTo(1);
	}

	@Test
	void aQueryAfterSettingsAnswersItsOwnRowsWithTheSettingsInForceAndThenLapsed() {
		String settings = LocalSettings.query("application_name", "round-trip-probe");

		assertThat(this.oneRoundTrip.queryAfter(settings, "select current_setting('application_name') as a",
				(rs, n) -> rs.getString("a"), Map.of()))
			.containsExactly("round-trip-probe");
		assertThat(this.jdbc.sql("select current_setting('application_name')").query(String.class).single())
			.isNotEqualTo("round-trip-probe");
	}

	@Test
	void anEmptyAnswerIsAnEmptyList() {
		OneRoundTrip.Answers<Integer, Integer> answers = this.oneRoundTrip.query("select v from round_trip_probe",
				(rs, n) -> rs.getInt(1), "select 1 where false", (rs, n) -> rs.getInt(1), Map.of());

		assertThat(answers.first()).isEmpty();
		assertThat(answers.second()).isEmpty();
	}

	@Test
	void outsideATransactionTheTwoAreOneTransaction() {
		assertThatExceptionOfType(DataIntegrityViolationException.class)
			.isThrownBy(() -> this.oneRoundTrip.query(WRITE, (rs, n) -> 1, WRITE, (rs, n) -> 2, Map.of("v", 8)));

		assertThat(count(8)).as("the first query's write went with the second's failure").isZero();
	}

	@Test
	void aFailingFirstQueryStopsTheSecond() {
		this.jdbc.sql("insert into round_trip_probe (v) values (9)").update();

		assertThatExceptionOfType(DataIntegrityViolationException.class)
			.isThrownBy(() -> this.oneRoundTrip.query(WRITE, (rs, n) -> 1,
					"insert into round_trip_probe (v) values (10) returning v", (rs, n) -> 2, Map.of("v", 9)));

		assertThat(count(10)).isZero();
	}

	@Test
	void insideATransactionBothArePartOfIt() {
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.transactions.inTransaction(() -> {
			this.oneRoundTrip.query(WRITE, (rs, n) -> 1, COUNT, (rs, n) -> 2, Map.of("v", 11));
			throw new IllegalStateException("rolled back");
		}));

		assertThat(count(11)).isZero();
	}

	private long count(int v) {
		return this.jdbc.sql(COUNT).param("v", v).query(Long.class).single();
	}

}
