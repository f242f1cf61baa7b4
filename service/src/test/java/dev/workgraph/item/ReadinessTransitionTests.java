package dev.workgraph.item;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.lease.expiry.LeaseReaper;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Database;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every change to the graph moves items between {@code blocked} and {@code ready} exactly
 * as the readiness predicate says, with exact counters, and {@code readySince} stamped
 * afresh on every move into {@code ready} (docs/http-api.md, "Readiness").
 */
class ReadinessTransitionTests extends GraphTest {

	@Autowired
	private LeaseReaper reaper;

	@Test
	void itemWithUnmetDependenciesIsBlockedUntilTheLastOneCompletes() {
		UUID first = claimable("first");
		UUID second = claimable("second");
		UUID item = createItem("item", "dependsOn", List.of(first.toString(), second.toString()));
		assertStatus(item, "blocked");
		assertBlockers(item, 2, 0, 0);
		completeItem(first);
		assertStatus(item, "blocked");
		assertBlockers(item, 1, 0, 0);
		Instant beforeReady = instant(item(second), "updatedAt");
		completeItem(second);
		assertStatus(item, "ready");
		assertBlockers(item, 0, 0, 0);
		assertThat(readySince(item)).isAfter(beforeReady);
	}

	@Test
	void addingADependencyBlocksAReadyItemAnd200WhenTheEdgeExists() {
		UUID dependency = createItem("dependency");
		UUID item = createItem("item");
		Api.Response added = addDependency(item, dependency);
		assertThat(added.status()).as(added.toString()).isEqualTo(201);
		assertThat(added.body().path("id").asString()).isEqualTo(item.toString());
		assertThat(added.body().path("status").asString()).isEqualTo("blocked");
		assertThat(added.body().path("readySince").isNull()).isTrue();
		assertThat(ids(added.body().path("dependsOn"))).containsExactly(dependency.toString());
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		Api.Response again = addDependency(item, dependency);
		assertThat(again.status()).as(again.toString()).isEqualTo(200);
		assertThat(again.body().path("blockers").path("unmetDependencies").asInt()).isEqualTo(1);
		assertThat(Database.fingerprint(this.jdbc)).as("a repeated edge changes nothing").isEqualTo(before);
		assertStatus(item, "blocked");
		assertBlockers(item, 1, 0, 0);
	}

	@Test
	void dependingOnACompletedItemLeavesAReadyItemReadyAndItsReadySinceAlone() {
		UUID done = claimable("done");
		completeItem(done);
		UUID item = createItem("item");
		Instant readySince = readySince(item);
		Api.Response added = addDependency(item, done);
		assertThat(added.status()).as(added.toString()).isEqualTo(201);
		assertStatus(item, "ready");
		assertBlockers(item, 0, 0, 0);
		assertThat(readySince(item)).isEqualTo(readySince);
	}

	@Test
	void dependencyAddedToALeasedItemCountsOnlyOnceTheLeaseEnds() {
		UUID item = claimable("item");
		UUID dependency = claimable("dependency");
		JsonNode claim = claimItem(item);
		Api.Response added = addDependency(item, dependency);
		assertThat(added.status()).as(added.toString()).isEqualTo(201);
		// No pre-emption: the holder keeps its lease.
		assertStatus(item, "leased");
		assertBlockers(item, 1, 0, 0);
		assertThat(item(item).path("lease").path("id").asString()).isEqualTo(leaseId(claim).toString());
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		Api.Response completed = complete(claim);
		assertThat(completed.status()).as(completed.toString()).isEqualTo(409);
		assertThat(completed.code()).isEqualTo("unmet_dependencies");
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
		Api.Response released = this.api.post("/leases/" + leaseId(claim) + "/release", Map.of("epoch", epoch(claim)));
		assertThat(released.status()).as(released.toString()).isEqualTo(200);
		assertThat(released.body().path("item").path("status").asString()).isEqualTo("blocked");
		assertStatus(item, "blocked");
		completeItem(dependency);
		assertStatus(item, "ready");
	}

	@Test
	void dependencyAddedToALeasedItemBlocksItOnceTheExpiryIsRecorded() {
		UUID item = claimable("item");
		UUID dependency = createItem("dependency");
		JsonNode claim = claimItem(item);
		assertThat(addDependency(item, dependency).status()).isEqualTo(201);
		expireLease(leaseId(claim));
		// Expired but not yet recorded: still leased.
		assertStatus(item, "leased");
		assertThat(this.reaper.reapExpired()).isEqualTo(1);
		assertStatus(item, "blocked");
		assertBlockers(item, 1, 0, 0);
		assertThat(removeDependency(item, dependency).status()).isEqualTo(204);
		assertStatus(item, "ready");
	}

	@Test
	void dependencyAddedAndRemovedDuringALeaseLeavesTheItemReadyAfterRelease() {
		UUID item = claimable("item");
		UUID dependency = createItem("dependency");
		JsonNode claim = claimItem(item);
		assertThat(addDependency(item, dependency).status()).isEqualTo(201);
		assertThat(removeDependency(item, dependency).status()).isEqualTo(204);
		assertStatus(item, "leased");
		assertBlockers(item, 0, 0, 0);
		assertThat(this.api.post("/leases/" + leaseId(claim) + "/release", Map.of("epoch", epoch(claim))).status())
			.isEqualTo(200);
		assertStatus(item, "ready");
	}

	@Test
	void removingTheLastUnmetEdgeMakesTheItemReadyWithAFreshReadySince() {
		UUID dependency = createItem("dependency");
		UUID item = createItem("item");
		Instant firstReady = readySince(item);
		assertThat(addDependency(item, dependency).status()).isEqualTo(201);
		assertStatus(item, "blocked");
		Api.Response removed = removeDependency(item, dependency);
		assertThat(removed.status()).as(removed.toString()).isEqualTo(204);
		assertStatus(item, "ready");
		assertBlockers(item, 0, 0, 0);
		assertThat(item(item).path("dependsOn").size()).isZero();
		assertThat(readySince(item)).isAfter(firstReady);
	}

	@Test
	void removingOneOfTwoUnmetEdgesKeepsTheItemBlocked() {
		UUID a = createItem("a");
		UUID b = createItem("b");
		UUID item = createItem("item", "dependsOn", List.of(a.toString(), b.toString()));
		assertThat(removeDependency(item, a).status()).isEqualTo(204);
		assertStatus(item, "blocked");
		assertBlockers(item, 1, 0, 0);
	}

	@Test
	void removingAnEdgeToACompletedDependencyChangesNoCounter() {
		UUID done = claimable("done");
		completeItem(done);
		UUID open = createItem("open");
		UUID item = createItem("item", "dependsOn", List.of(done.toString(), open.toString()));
		assertBlockers(item, 1, 0, 0);
		assertThat(removeDependency(item, done).status()).isEqualTo(204);
		assertStatus(item, "blocked");
		assertBlockers(item, 1, 0, 0);
	}

	@Test
	void childUnderAReadyParentBlocksItUntilEveryChildIsTerminal() {
		UUID parent = createItem("parent");
		Instant firstReady = readySince(parent);
		UUID completing = createItem("completing", "parentId", parent.toString(), "queue", "completing");
		assertStatus(parent, "blocked");
		assertBlockers(parent, 0, 1, 0);
		UUID cancelled = createItem("cancelled", "parentId", parent.toString());
		assertBlockers(parent, 0, 2, 0);
		completeItem(completing);
		assertStatus(parent, "blocked");
		assertBlockers(parent, 0, 1, 0);
		assertThat(cancel(cancelled, "not needed").status()).isEqualTo(200);
		assertStatus(parent, "ready");
		assertBlockers(parent, 0, 0, 0);
		assertThat(readySince(parent)).isAfter(firstReady);
	}

	@Test
	void childOfABlockedParentKeepsItBlockedForBothReasons() {
		UUID dependency = createItem("dependency");
		UUID parent = createItem("parent", "dependsOn", List.of(dependency.toString()));
		UUID child = createItem("child", "parentId", parent.toString());
		assertBlockers(parent, 1, 1, 0);
		assertThat(cancel(child, null).status()).isEqualTo(200);
		assertStatus(parent, "blocked");
		assertBlockers(parent, 1, 0, 0);
	}

	@Test
	void cancelledDependencyKeepsTheDependentBlockedUntilTheEdgeIsRemoved() {
		UUID dependency = createItem("dependency");
		UUID item = createItem("item", "dependsOn", List.of(dependency.toString()));
		assertThat(cancel(dependency, "obsolete").status()).isEqualTo(200);
		assertStatus(item, "blocked");
		assertBlockers(item, 1, 0, 0);
		JsonNode listed = item(item).path("dependsOn").get(0);
		assertThat(listed.path("id").asString()).isEqualTo(dependency.toString());
		assertThat(listed.path("status").asString()).isEqualTo("cancelled");
		// Adding an edge to a cancelled item is allowed, and it is unmet.
		UUID other = createItem("other");
		assertThat(addDependency(other, dependency).status()).isEqualTo(201);
		assertStatus(other, "blocked");
		assertThat(removeDependency(item, dependency).status()).isEqualTo(204);
		assertStatus(item, "ready");
		assertBlockers(item, 0, 0, 0);
	}

	@Test
	void readySinceIsStampedAfreshOnEveryMoveIntoReady() {
		UUID item = claimable("item");
		Instant created = readySince(item);
		JsonNode claim = claimItem(item);
		assertStatus(item, "leased");
		assertThat(this.api.post("/leases/" + leaseId(claim) + "/release", Map.of("epoch", epoch(claim))).status())
			.isEqualTo(200);
		assertStatus(item, "ready");
		Instant released = readySince(item);
		assertThat(released).isAfter(created);
		UUID dependency = createItem("dependency");
		addDependency(item, dependency);
		removeDependency(item, dependency);
		assertThat(readySince(item)).isAfter(released);
	}

	@Test
	void terminalItemsRejectGraphChanges() {
		UUID open = createItem("open");
		UUID done = claimable("done");
		UUID dependencyOfDone = claimable("dependency-of-done");
		assertThat(addDependency(done, dependencyOfDone).status()).isEqualTo(201);
		completeItem(dependencyOfDone);
		completeItem(done);
		UUID cancelled = createItem("cancelled", "dependsOn", List.of(open.toString()));
		assertThat(cancel(cancelled, null).status()).isEqualTo(200);
		Map<String, Object> before = Database.fingerprint(this.jdbc);
		List<Api.Response> rejected = List.of(addDependency(done, open), addDependency(cancelled, open),
				removeDependency(done, dependencyOfDone), removeDependency(cancelled, open),
				this.api.post("/items", Map.of("title", "late child", "parentId", done.toString())),
				this.api.post("/items", Map.of("title", "late child", "parentId", cancelled.toString())),
				cancel(done, null), cancel(cancelled, null));
		for (Api.Response response : rejected) {
			assertThat(response.status()).as(response.toString()).isEqualTo(409);
			assertThat(response.code()).isEqualTo("item_terminal");
		}
		assertThat(Database.fingerprint(this.jdbc)).isEqualTo(before);
	}

}
