package dev.workgraph.sql;

import java.util.List;

import dev.workgraph.testing.IntegrationTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Settings made by one statement last for the transaction and no longer. */
@IntegrationTest
class LocalSettingsTests {

	private static final String SETTINGS = """
			select current_setting('enable_seqscan') || ' ' || current_setting('plan_cache_mode')
			|| ' ' || current_setting('jit')""";

	@Autowired
	private Transactions transactions;

	@Autowired
	private JdbcClient jdbc;

	@Test
	void everySettingHoldsForTheRestOfTheTransaction() {
		String settings = LocalSettings.query("enable_seqscan", "off", "plan_cache_mode", "force_custom_plan", "jit",
				"off");
		String before = settingsNow();
		assertThat(before).isNotEqualTo("off force_custom_plan off");

		List<String> inside = this.transactions.inTransaction(() -> {
			this.jdbc.sql(settings).query().singleRow();
			String first = settingsNow();
			this.jdbc.sql("select 1").query(Integer.class).single();
			return List.of(first, settingsNow());
		});

		assertThat(inside).containsOnly("off force_custom_plan off");
		for (int i = 0; i < 20; i++) {
			assertThat(settingsNow()).as("a pooled connection after the transaction").isEqualTo(before);
		}
	}

	@Test
	void allTheSettingsAreOneStatement() {
		assertThat(LocalSettings.query("jit", "off", "enable_seqscan", "off")).doesNotContain(";")
			.isEqualTo("select set_config('jit', 'off', true), set_config('enable_seqscan', 'off', true)");
	}

	@Test
	void namesComeWithValues() {
		assertThatIllegalArgumentException().isThrownBy(() -> LocalSettings.query("jit"));
		assertThatIllegalArgumentException().isThrownBy(LocalSettings::query);
	}

	private String settingsNow() {
		return this.jdbc.sql(SETTINGS).query(String.class).single();
	}

}
