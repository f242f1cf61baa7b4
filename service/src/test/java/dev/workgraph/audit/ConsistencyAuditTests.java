package dev.workgraph.audit;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Database;
import dev.workgraph.testing.IntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The audit every concurrency test relies on must itself find what is wrong: stored
 * counters, claim-queue entries and statuses are corrupted behind the service's back and
 * each must be reported, by id, whether the items fall into one chunk or several.
 */
@IntegrationTest
class ConsistencyAuditTests {

	@LocalServerPort
	private int port;

	@Autowired
	private JdbcClient jdbc;

	private Api api;

	@BeforeEach
	void cleanDatabase() {
		Database.clean(this.jdbc);
		this.api = new Api(this.port);
	}

	@AfterEach
	void leaveNoCorruptionBehind() {
		Database.clean(this.jdbc);
	}

	@Test
	void aHealthyGraphIsConsistentInOneChunkOrMany() {
		UUID first = create(Map.of("title", "first"));
		create(Map.of("title", "second", "dependsOn", List.of(first)));
		create(Map.of("title", "child", "parentId", first));
		for (ConsistencyAudit audit : List.of(new ConsistencyAudit(this.jdbc), new ConsistencyAudit(this.jdbc, 1))) {
			ConsistencyAudit.Report report = audit.run();
			assertThat(report.consistent()).isTrue();
			assertThat(report.itemsChecked()).isEqualTo(3);
			assertThat(report.inconsistencies()).isEmpty();
		}
	}

	@Test
	void corruptionsAreReportedByItemAcrossChunkBoundaries() {
		UUID upstream = create(Map.of("title", "upstream"));
		UUID dependent = create(Map.of("title", "dependent", "dependsOn", List.of(upstream)));
		UUID dequeued = create(Map.of("title", "dequeued"));
		UUID reprioritised = create(Map.of("title", "reprioritised"));
		for (int i = 0; i < 3; i++) {
			create(Map.of("title", "bystander " + i));
		}
		this.jdbc.sql("update work_items set unmet_dependencies = 2 where id = ?").param(dependent).update();
		this.jdbc.sql("delete from ready_items where item_id = ?").param(dequeued).update();
		this.jdbc.sql("update ready_items set priority = 7 where item_id = ?").param(reprioritised).update();

		for (int chunkSize : List.of(100_000, 2, 1)) {
			ConsistencyAudit.Report report = new ConsistencyAudit(this.jdbc, chunkSize).run();
			assertThat(report.consistent()).as("chunk size %d", chunkSize).isFalse();
			assertThat(report.itemsChecked()).isEqualTo(7);
			assertThat(report.inconsistencies()).as("chunk size %d", chunkSize)
				.containsExactlyInAnyOrder(
						new ConsistencyAudit.Inconsistency(dependent, "unmetDependencies is 2 but recounting gives 1"),
						new ConsistencyAudit.Inconsistency(dequeued,
								"status is ready but the item is not in the claim queue"),
						new ConsistencyAudit.Inconsistency(reprioritised, "claim queue entry differs from the item"));
		}
	}

	@Test
	void reportsTheFirstHundredInconsistenciesInIdOrder() {
		for (int i = 0; i < 150; i++) {
			create(Map.of("title", "item " + i));
		}
		this.jdbc.sql("delete from ready_items").update();

		ConsistencyAudit.Report report = new ConsistencyAudit(this.jdbc, 7).run();

		assertThat(report.consistent()).isFalse();
		assertThat(report.itemsChecked()).isEqualTo(150);
		List<UUID> expected = this.jdbc.sql("select id from work_items order by id limit 100").query(UUID.class).list();
		assertThat(report.inconsistencies()).extracting(ConsistencyAudit.Inconsistency::itemId)
			.containsExactlyElementsOf(expected);
	}

	private UUID create(Map<String, Object> fields) {
		Api.Response created = this.api.post("/items", fields);
		assertThat(created.status()).as(created.toString()).isEqualTo(201);
		return UUID.fromString(created.body().path("id").asString());
	}

}
