package dev.workgraph.attention;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.LeaseTestSupport;
import dev.workgraph.testing.Database;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The continuity preference (docs/http-api.md, "Continuity preference"): the worker whose
 * lease ended with a blocking question is preferred for the item, among items of the same
 * priority, while {@code now < readySince + continuity-window} (10 minutes here). It
 * never reserves the item; it restarts whenever the item becomes ready again and is over
 * once anyone claims it. Time passing is simulated by moving {@code readySince} back in
 * SQL.
 */
class ContinuityTests extends LeaseTestSupport {

	private static final String QUEUE = "work";

	/**
	 * An older ready item, then the asked-about item made ready again by the answer: the
	 * older one would be claimed first but for the preference.
	 */
	private record Setting(UUID older, UUID asked) {
	}

	private Setting olderItemAndAnAnsweredQuestionBy(String asker) {
		UUID asked = createItem("asked about", "queue", QUEUE);
		JsonNode claim = claimFrom(QUEUE, asker);
		assertThat(itemId(claim)).isEqualTo(asked);
		UUID request = askForAttention(claim, "which way?", true).id();
		UUID older = createItem("ready for longer", "queue", QUEUE);
		assertOk(resolve(request, "left"));
		assertThat(readySince(older)).isBefore(readySince(asked));
		return new Setting(older, asked);
	}

	@Test
	void previousWorkerGetsItsItemOverAnOlderItemOfTheSamePriority() {
		Setting setting = olderItemAndAnAnsweredQuestionBy("asker");
		JsonNode claim = claimFrom(QUEUE, "asker");
		assertThat(itemId(claim)).isEqualTo(setting.asked());
		assertThat(epoch(claim)).isEqualTo(2);
		assertThat(claim.path("item").path("attentionRequests").get(0).path("resolution").asString()).isEqualTo("left");
		assertThat(itemId(claimFrom(QUEUE, "asker"))).isEqualTo(setting.older());
	}

	@Test
	void otherWorkersAreNotAffectedAndMayStillClaimThePreferredItem() {
		Setting setting = olderItemAndAnAnsweredQuestionBy("asker");
		assertThat(itemId(claimFrom(QUEUE, "someone-else"))).isEqualTo(setting.older());
		assertThat(itemId(claimFrom(QUEUE, "someone-else"))).isEqualTo(setting.asked());
		nothingToClaim(Map.of("workerId", "asker"));
	}

	@Test
	void higherPriorityItemStillBeatsThePreferredOne() {
		Setting setting = olderItemAndAnAnsweredQuestionBy("asker");
		UUID urgent = createItem("urgent, and newest", "queue", QUEUE, "priority", 1);
		assertThat(itemId(claimFrom(QUEUE, "asker"))).isEqualTo(urgent);
		assertThat(itemId(claimFrom(QUEUE, "asker"))).isEqualTo(setting.asked());
	}

	@Test
	void preferredItemOfHigherPriorityIsClaimedAnyway() {
		UUID asked = createItem("asked about", "queue", QUEUE, "priority", 5);
		JsonNode claim = claimFrom(QUEUE, "asker");
		UUID request = askForAttention(claim, "which way?", true).id();
		createItem("lower", "queue", QUEUE);
		assertOk(resolve(request, "right"));
		assertThat(itemId(claimFrom(QUEUE, "someone-else"))).isEqualTo(asked);
	}

	@Test
	void preferenceHoldsWithinTheWindow() {
		Setting setting = olderItemAndAnAnsweredQuestionBy("asker");
		age(setting.older(), "20 minutes");
		age(setting.asked(), "9 minutes");
		assertThat(itemId(claimFrom(QUEUE, "asker"))).isEqualTo(setting.asked());
	}

	@Test
	void preferenceIsGoneAfterTheWindow() {
		Setting setting = olderItemAndAnAnsweredQuestionBy("asker");
		age(setting.older(), "20 minutes");
		age(setting.asked(), "10 minutes 1 second");
		assertThat(itemId(claimFrom(QUEUE, "asker"))).isEqualTo(setting.older());
	}

	@Test
	void preferenceRestartsWhenTheItemBecomesReadyAgain() {
		Setting setting = olderItemAndAnAnsweredQuestionBy("asker");
		age(setting.older(), "30 minutes");
		age(setting.asked(), "11 minutes");
		// Blocked and unblocked again: ready anew, so the window starts over.
		UUID prerequisite = createItem("prerequisite", "queue", "elsewhere");
		assertCreated(this.api.post("/items/" + setting.asked() + "/dependencies", Map.of("dependsOn", prerequisite)));
		assertThat(status(setting.asked())).isEqualTo("blocked");
		assertThat(this.api.delete("/items/" + setting.asked() + "/dependencies/" + prerequisite).status())
			.isEqualTo(204);
		assertThat(status(setting.asked())).isEqualTo("ready");
		assertThat(itemId(claimFrom(QUEUE, "asker"))).isEqualTo(setting.asked());
	}

	@Test
	void preferenceIsOverOnceAnyoneClaimsTheItem() {
		for (String claimant : List.of("someone-else", "asker")) {
			Database.clean(this.jdbc);
			UUID asked = createItem("asked about", "queue", QUEUE);
			JsonNode claim = claimFrom(QUEUE, "asker");
			UUID request = askForAttention(claim, "which way?", true).id();
			assertOk(resolve(request, "left"));
			JsonNode taken = claimFrom(QUEUE, claimant);
			assertThat(itemId(taken)).isEqualTo(asked);
			assertOk(release(taken));
			UUID older = createItem("ready for longer", "queue", QUEUE);
			age(older, "1 minute");
			assertThat(itemId(claimFrom(QUEUE, "asker"))).as("after %s claimed it", claimant).isEqualTo(older);
		}
	}

	@Test
	void preferenceStaysWithinTheQueuesAsked() {
		Setting setting = olderItemAndAnAnsweredQuestionBy("asker");
		UUID other = createItem("other queue", "queue", "other");
		assertThat(itemId(claimFrom("other", "asker"))).isEqualTo(other);
		nothingToClaim(Map.of("workerId", "asker", "queues", List.of("other")));
		assertThat(itemId(claim(Map.of("workerId", "asker", "queues", List.of("other", QUEUE)))))
			.isEqualTo(setting.asked());
	}

	@Test
	void preferenceStartsWhenTheItemBecomesReadyNotWhenTheQuestionIsAnswered() {
		UUID asked = createItem("asked about", "queue", QUEUE);
		JsonNode claim = claimFrom(QUEUE, "asker");
		createItem("part", "parentId", asked, "queue", "parts");
		UUID request = askForAttention(claim, "which way?", true).id();
		UUID older = createItem("ready for longer", "queue", QUEUE);
		assertOk(resolve(request, "left"));
		assertThat(status(asked)).isEqualTo("blocked");
		assertOk(complete(claimFrom("parts", "worker-2")));
		assertThat(status(asked)).isEqualTo("ready");
		assertThat(readySince(older)).isBefore(readySince(asked));
		assertThat(itemId(claimFrom(QUEUE, "asker"))).isEqualTo(asked);
	}

	@Test
	void crashLoopQuestionPrefersNobody() {
		UUID poison = createItem("poison", "queue", QUEUE);
		for (int i = 0; i < 3; i++) {
			JsonNode claim = claimFrom(QUEUE, "worker-x");
			assertThat(itemId(claim)).isEqualTo(poison);
			expireLease(leaseId(claim));
			reap();
		}
		UUID request = uuid(item(poison).path("attentionRequests").get(0).path("id"));
		UUID older = createItem("ready for longer", "queue", QUEUE);
		assertOk(resolve(request, "fixed"));
		assertThat(itemId(claimFrom(QUEUE, "worker-x"))).isEqualTo(older);
	}

	private Instant readySince(UUID id) {
		return instant(item(id).path("readySince"));
	}

	/** As if the item had been ready for this much longer. */
	private void age(UUID id, String interval) {
		this.jdbc.sql("update work_items set ready_since = ready_since - cast(:age as interval) where id = :id")
			.param("age", interval)
			.param("id", id)
			.update();
		this.jdbc.sql("update ready_items set ready_since = ready_since - cast(:age as interval) where item_id = :id")
			.param("age", interval)
			.param("id", id)
			.update();
	}

}
