package dev.workgraph.wait;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.ServiceInstance;
import dev.workgraph.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lost wake-up is impossible: a wait and the event it waits for, registered and sent
 * at the same moment through two service instances, hundreds of times with jittered
 * timing. Whichever commits second sees the other, so every wait ends matched, by exactly
 * one event: either the event found it open or it found the event retained, never
 * neither, never both. The deadline races events the same way: every wait ends either
 * matched or timed out, never both.
 */
class WaitRaceTests extends LeaseTestSupport {

	private static ServiceInstance second;

	@Autowired
	WaitTimeouts timeouts;

	@BeforeAll
	static void startSecondInstance() {
		TestDatabase.Coordinates database = TestDatabase.coordinates();
		second = ServiceInstance.start("second-instance", database.jdbcUrl(), database.username(), database.password(),
				"--workgraph.security.enabled=false");
	}

	@AfterAll
	static void stopSecondInstance() {
		if (second != null) {
			second.close();
		}
	}

	@Test
	void aWaitAndItsEventRacingOnTwoInstancesAlwaysMeet() {
		int rounds = 400;
		int pairs = 4;
		for (int i = 0; i < rounds; i++) {
			createItem("waits for round " + i);
		}
		List<JsonNode> claims = claimUntilEmpty("waiter", Map.of("leaseSeconds", 600));
		assertThat(claims).hasSize(rounds);
		Api first = this.api;
		Api other = second.api();
		List<List<Outcome>> outcomes = Concurrently.run(pairs * 2, (thread) -> {
			int pair = thread / 2;
			boolean waiter = thread % 2 == 0;
			List<Outcome> seen = new ArrayList<>();
			for (int round = pair; round < rounds; round += pairs) {
				jitter();
				String key = "round-" + round;
				if (waiter && round % 8 == 0) {
					// Every eighth wait comes late, so that both orders happen however
					// the
					// machine schedules the threads; the other rounds race as they come.
					LockSupport.parkNanos(20_000_000);
				}
				if (waiter) {
					JsonNode claim = claims.get(round);
					Api.Response waiting = first.post("/leases/" + leaseId(claim) + "/waits",
							Map.of("epoch", epoch(claim), "event", Map.of("name", "race", "key", key)));
					assertThat(waiting.status()).as(waiting.toString()).isEqualTo(201);
					// Whether a retained event matched it as it was registered is read
					// from the
					// database below: the answer shows the wait as it is after the
					// commit, when
					// an event may already have matched it.
					seen.add(new Outcome(key, -1));
				}
				else {
					Api.Response event = WaitTests.postEvent(other, "race", key, null, Map.of("round", round));
					assertThat(event.status()).as(event.toString()).isEqualTo(202);
					seen.add(new Outcome(key, event.body().path("matchedWaits").asInt()));
				}
			}
			return seen;
		});
		Map<String, Integer> matchesPerKey = new HashMap<>();
		for (List<Outcome> thread : outcomes) {
			for (Outcome outcome : thread) {
				matchesPerKey.merge(outcome.key(), Math.max(0, outcome.eventMatched()), Integer::sum);
			}
		}
		List<String> registeredMatched = this.jdbc
			.sql("select event_key from waits where event_name = 'race' and resolved_at = created_at")
			.query(String.class)
			.list();
		registeredMatched.forEach((key) -> matchesPerKey.merge(key, 1, Integer::sum));
		int matchedAtOnce = registeredMatched.size();
		assertThat(matchesPerKey).hasSize(rounds);
		assertThat(matchesPerKey.values()).as("each wait matched exactly once").containsOnly(1);
		assertThat(count("select count(*) from waits where status = 'matched'")).isEqualTo(rounds);
		assertThat(count("select count(*) from waits where status <> 'matched'")).isZero();
		assertThat(count("select count(*) from work_items where status = 'ready'")).isEqualTo(rounds);
		// Both orders happened, or the race was not a race.
		assertThat(matchedAtOnce).isBetween(1, rounds - 1);
	}

	@Test
	void anEventAndTheDeadlineRacingForOneWaitNeverBothApply() {
		int waits = 300;
		for (int i = 0; i < waits; i++) {
			createItem("late or on time " + i);
		}
		List<JsonNode> claims = claimUntilEmpty("waiter", Map.of("leaseSeconds", 600));
		for (int i = 0; i < waits; i++) {
			JsonNode claim = claims.get(i);
			assertCreated(this.api.post("/leases/" + leaseId(claim) + "/waits", Map.of("epoch", epoch(claim), "event",
					Map.of("name", "race", "key", "k-" + i), "timeoutSeconds", 3600, "onTimeout", "ask")));
		}
		this.jdbc.sql("update waits set timeout_at = now() where status = 'open'").update();
		Api other = second.api();
		WaitTimeouts secondTimeouts = second.bean(WaitTimeouts.class);
		List<Integer> results = Concurrently.run(6, (thread) -> {
			if (thread < 2) {
				int timedOut = 0;
				for (int pass = 0; pass < 30; pass++) {
					timedOut += ((thread == 0) ? this.timeouts : secondTimeouts).timeOutDue();
					jitter();
				}
				return timedOut;
			}
			int matched = 0;
			for (int i = thread - 2; i < waits; i += 4) {
				Api api = (i % 2 == 0) ? this.api : other;
				matched += WaitTests.postEvent(api, "race", "k-" + i, null, null).body().path("matchedWaits").asInt();
			}
			return matched;
		});
		int timedOut = results.get(0) + results.get(1);
		int matched = results.subList(2, 6).stream().mapToInt(Integer::intValue).sum();
		assertThat(timedOut + matched).isEqualTo(waits);
		assertThat(count("select count(*) from waits where status = 'timed_out'")).isEqualTo(timedOut);
		assertThat(count("select count(*) from waits where status = 'matched'")).isEqualTo(matched);
		// Exactly the timed-out ones asked a human.
		assertThat(count("select count(*) from attention_requests where kind = 'wait_timed_out'")).isEqualTo(timedOut);
		assertThat(count("select count(*) from work_items where status = 'ready'")).isEqualTo(matched);
	}

	private static void jitter() {
		int roll = ThreadLocalRandom.current().nextInt(4);
		if (roll == 0) {
			LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(2_000_000));
		}
		else if (roll == 1) {
			Thread.yield();
		}
	}

	private record Outcome(String key, int eventMatched) {
	}

}
