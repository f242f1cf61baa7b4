package dev.workgraph.database;

import dev.workgraph.testing.MigratedDatabase;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.DefaultApplicationArguments;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up warning when autovacuum cannot analyze the items: read from the server and
 * the table as they are, and worded for each setting that stops it.
 */
@ExtendWith(OutputCaptureExtension.class)
class AutovacuumCheckTests {

	@Test
	void theSettingsAreReadFromTheServerAndTheItemsTable(CapturedOutput output) {
		try (MigratedDatabase database = MigratedDatabase.create()) {
			AutovacuumSettings settings = new AutovacuumSettings(database.jdbc());
			AutovacuumCheck check = new AutovacuumCheck(settings);
			boolean server = database.jdbc().sql("show autovacuum").query(String.class).single().equals("on");
			boolean trackCounts = database.jdbc().sql("show track_counts").query(String.class).single().equals("on");

			assertThat(settings.read()).isEqualTo(new AutovacuumSettings.Autovacuum(server, trackCounts, true));

			database.jdbc().sql("alter table work_items set (autovacuum_enabled = false)").update();
			assertThat(settings.read()).isEqualTo(new AutovacuumSettings.Autovacuum(server, trackCounts, false));
			check.run(new DefaultApplicationArguments());
			assertThat(
					output.getAll().lines().filter((line) -> line.contains("autovacuum_enabled = false on work_items")))
				.singleElement(InstanceOfAssertFactories.STRING)
				.contains(" WARN ")
				.contains("run ANALYZE after loading many items");

			database.jdbc().sql("alter table work_items reset (autovacuum_enabled)").update();
			assertThat(settings.read().workItems()).isTrue();
		}
	}

	@Test
	void postgresqlsDefaultsGiveNoWarning() {
		assertThat(new AutovacuumSettings.Autovacuum(true, true, true).warning()).isEmpty();
	}

	@Test
	void eachSettingThatStopsAutovacuumIsNamed() {
		assertThat(new AutovacuumSettings.Autovacuum(false, true, true).warning()).hasValueSatisfying(
				(warning) -> assertThat(warning).contains("(autovacuum = off)").contains("docs/operations.md"));
		assertThat(new AutovacuumSettings.Autovacuum(true, false, true).warning())
			.hasValueSatisfying((warning) -> assertThat(warning).contains("(track_counts = off)"));
		assertThat(new AutovacuumSettings.Autovacuum(false, false, false).warning())
			.hasValueSatisfying((warning) -> assertThat(warning)
				.contains("(autovacuum = off, track_counts = off, autovacuum_enabled = false on work_items)"));
	}

}
