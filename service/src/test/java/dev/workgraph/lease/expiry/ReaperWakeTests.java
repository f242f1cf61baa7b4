package dev.workgraph.lease.expiry;

import java.time.Duration;
import java.util.UUID;

import dev.workgraph.WorkGraphApplication;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reaper wakes just after the next expiry instead of polling at its interval: with a
 * 4 s interval, a lease that expires between two passes is recorded within a fraction of
 * a second of its expiresAt, not up to 4 s later. A second instance runs the reaper on
 * its own schedule (the test instance's reaper is off).
 */
class ReaperWakeTests extends LeaseTestSupport {

	private static final Duration INTERVAL = Duration.ofSeconds(4);

	private static ConfigurableApplicationContext reaperInstance;

	@BeforeAll
	static void startInstanceWithReaper() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		reaperInstance = new SpringApplicationBuilder(WorkGraphApplication.class).run("--server.port=0",
				"--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=" + database.username(),
				"--spring.datasource.password=" + database.password(),
				"--spring.datasource.hikari.pool-name=reaper-instance",
				"--workgraph.lease.reaper-interval=" + INTERVAL.toMillis() + "ms",
				"--workgraph.lease.vacuum-interval=0s", "--workgraph.security.enabled=false");
	}

	@AfterAll
	static void stopInstanceWithReaper() {
		if (reaperInstance != null) {
			reaperInstance.close();
		}
	}

	/**
	 * Twice, so that a reaper polling every 4 s would have to land within 400 ms of both
	 * expiries by chance (1 in 100).
	 */
	@Test
	void aLeaseIsRecordedAsExpiredWithinMomentsOfItsExpiry() {
		for (int round = 0; round < 2; round++) {
			createItem("expires between passes " + round);
			// Longer than the interval: a pass runs while the lease is active and sees
			// when it will expire.
			JsonNode claim = claim("sleeper-" + round, (int) INTERVAL.toSeconds() + 1);
			UUID leaseId = uuid(claim.path("lease").path("id"));
			Duration late = recordedAfterExpiry(leaseId, INTERVAL.multipliedBy(3));
			assertThat(late).as("recorded after expiresAt, round %d", round).isLessThan(Duration.ofMillis(400));
		}
	}

	/**
	 * A scheduled item is promoted by the other instance's reaper within moments of its
	 * notBefore (not up to an interval later), with readySince its notBefore.
	 */
	@Test
	void aScheduledItemIsPromotedWithinMomentsOfItsTime() {
		UUID item = createItem("due between passes", "notBefore", databaseNow().plus(Duration.ofHours(1)).toString());
		// Due a second after the next pass at the latest, by the database's clock (on a
		// busy machine the request that created the item may take seconds).
		java.time.Instant at = this.jdbc.sql("""
				update work_items set not_before = clock_timestamp() + :millis * interval '1 millisecond'
				where id = :id returning not_before
				""")
			.param("millis", INTERVAL.plusSeconds(1).toMillis())
			.param("id", item)
			.query(java.time.OffsetDateTime.class)
			.single()
			.toInstant();
		long deadline = System.nanoTime() + INTERVAL.multipliedBy(4).toNanos();
		Double late = null;
		while (late == null && System.nanoTime() < deadline) {
			late = this.jdbc.sql("""
					select extract(epoch from clock_timestamp() - ready_since)::float8
					from work_items where id = :id and status = 'ready'
					""").param("id", item).query(Double.class).optional().orElse(null);
			Concurrently.sleep(10);
		}
		assertThat(late).as("promoted").isNotNull();
		assertThat(Duration.ofMillis(Math.round(late * 1000))).isLessThan(Duration.ofMillis(400));
		assertThat(instant(item(item).path("readySince"))).isEqualTo(at);
	}

	@Test
	void theNextPassIsJustAfterTheNextExpiryAndNeverLaterThanTheInterval() {
		LeaseReaper reaper = reaperInstance.getBean(LeaseReaper.class);
		assertThat(reaper.nextPassIn(Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(302));
		assertThat(reaper.nextPassIn(Duration.ofMinutes(5))).isEqualTo(INTERVAL);
		// Expired but left (its item locked by a write in flight): look again shortly,
		// not in a tight loop.
		assertThat(reaper.nextPassIn(Duration.ZERO)).isEqualTo(LeaseReaper.LOCKED_EXPIRY_RETRY);
		assertThat(reaper.nextPassIn(Duration.ofMillis(-50))).isEqualTo(LeaseReaper.LOCKED_EXPIRY_RETRY);
	}

	/**
	 * Polls lease_history every 10 ms; answers how long after the lease's expiresAt it
	 * was first seen recorded, by PostgreSQL's clock.
	 */
	private Duration recordedAfterExpiry(UUID leaseId, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			Double seconds = this.jdbc.sql("""
					select extract(epoch from clock_timestamp() - expires_at)::float8
					from lease_history where lease_id = :id and outcome = 'expired'
					""").param("id", leaseId).query(Double.class).optional().orElse(null);
			if (seconds != null) {
				return Duration.ofMillis(Math.round(seconds * 1000));
			}
			Concurrently.sleep(10);
		}
		throw new AssertionError("Lease " + leaseId + " not recorded as expired within " + timeout);
	}

}
