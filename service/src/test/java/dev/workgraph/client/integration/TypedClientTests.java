package dev.workgraph.client.integration;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.client.AttentionQuery;
import dev.workgraph.client.AttentionRequest;
import dev.workgraph.client.BatchClaimRequest;
import dev.workgraph.client.Claim;
import dev.workgraph.client.ClaimRequest;
import dev.workgraph.client.Completion;
import dev.workgraph.client.CompletionResult;
import dev.workgraph.client.Decomposed;
import dev.workgraph.client.EndedLease;
import dev.workgraph.client.HandedOff;
import dev.workgraph.client.Item;
import dev.workgraph.client.ItemPage;
import dev.workgraph.client.ItemQuery;
import dev.workgraph.client.ItemStatus;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.client.LeaseRef;
import dev.workgraph.client.NewAttentionRequest;
import dev.workgraph.client.NewChild;
import dev.workgraph.client.NewItem;
import dev.workgraph.client.SavedCheckpoint;
import dev.workgraph.client.problem.AlreadyResolved;
import dev.workgraph.client.problem.DependencyCycle;
import dev.workgraph.client.problem.EpochMismatch;
import dev.workgraph.client.problem.IdempotencyConflict;
import dev.workgraph.client.problem.ItemTerminal;
import dev.workgraph.client.problem.LeaseEnded;
import dev.workgraph.client.problem.LeaseExpired;
import dev.workgraph.client.problem.NotFound;
import dev.workgraph.client.problem.OpenChildren;
import dev.workgraph.client.problem.UnmetDependencies;
import dev.workgraph.client.problem.ValidationFailed;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Every endpoint of the typed client against the real service, and the exception each
 * problem arrives as.
 */
class TypedClientTests extends WorkerClientTest {

	@Test
	void itemsAreCreatedReadListedAndPaged() {
		Item plan = this.client.createItem(NewItem.titled("Ship 1.4")
			.withQueue("releases")
			.withPriority(10)
			.withDescription("the release")
			.withMetadata(Map.of("branch", "release/1.4")));
		assertThat(plan.status()).isEqualTo(ItemStatus.READY);
		assertThat(plan.metadata().path("branch").asString()).isEqualTo("release/1.4");
		for (int i = 0; i < 5; i++) {
			this.client.createItem(NewItem.titled("step " + i).withParent(plan.id()));
		}
		Item read = this.client.getItem(plan.id());
		assertThat(read.status()).isEqualTo(ItemStatus.BLOCKED);
		assertThat(read.blockers().openChildren()).isEqualTo(5);
		assertThat(read.children()).hasSize(5);
		ItemPage first = this.client.listItems(ItemQuery.all().withParent(plan.id()).withLimit(2));
		assertThat(first.items()).hasSize(2);
		assertThat(first.nextCursor()).isNotNull();
		assertThat(this.client.items(ItemQuery.all().withParent(plan.id()).withLimit(2))).extracting(Item::title)
			.containsExactly("step 0", "step 1", "step 2", "step 3", "step 4");
		assertThat(this.client.items(ItemQuery.all().withStatus(ItemStatus.BLOCKED))).extracting(Item::id)
			.containsExactly(plan.id());
		assertThatExceptionOfType(NotFound.class).isThrownBy(() -> this.client.getItem(UUID.randomUUID()));
	}

	@Test
	void creationIsIdempotentWithAKey() {
		Item first = this.client.createItem(NewItem.titled("once"), "key-once");
		Item replay = this.client.createItem(NewItem.titled("once"), "key-once");
		assertThat(replay.id()).isEqualTo(first.id());
		assertThatExceptionOfType(IdempotencyConflict.class)
			.isThrownBy(() -> this.client.createItem(NewItem.titled("twice"), "key-once"));
	}

	@Test
	void aHandoffPassesTheItemToTheSuccessorWithTheNextEpochAndAFenceToken() {
		Item item = this.client.createItem(NewItem.titled("review me").withQueue("reviews"));
		Claim claim = this.client.claim(ClaimRequest.forWorker("w").withQueues("reviews")).orElseThrow();
		assertThat(claim.lease().fenceToken()).isNotBlank();
		HandedOff handed = this.client.handOff(claim.lease(), "reviewer", "needs a review", 90);
		assertThat(handed.ended().outcome()).isEqualTo(LeaseOutcome.HANDED_OFF);
		assertThat(handed.lease().workerId()).isEqualTo("reviewer");
		assertThat(handed.lease().epoch()).isEqualTo(2);
		assertThat(handed.lease().grantedLength()).hasSeconds(90);
		assertThat(handed.lease().fenceToken()).isNotEqualTo(claim.lease().fenceToken());
		assertThat(handed.item().id()).isEqualTo(item.id());
		assertThat(handed.item().status()).isEqualTo(ItemStatus.LEASED);
		assertThatExceptionOfType(LeaseEnded.class).isThrownBy(() -> this.client.complete(claim.lease(), null));
	}

	@Test
	void checkpointsAreFencedAndHandedToTheNextHolder() {
		Item item = this.client.createItem(NewItem.titled("long job").withQueue("checkpointed"));
		Claim first = this.client.claim(ClaimRequest.forWorker("w").withQueues("checkpointed")).orElseThrow();
		assertThat(first.item().checkpoint()).isNull();
		SavedCheckpoint saved = this.client.checkpoint(first.lease(), Map.of("pages", 40), 120);
		assertThat(saved.checkpoint().seq()).isEqualTo(1);
		assertThat(saved.checkpoint().epoch()).isEqualTo(1);
		assertThat(saved.lease().grantedLength()).hasSeconds(120);
		assertThatExceptionOfType(EpochMismatch.class)
			.isThrownBy(() -> this.client.checkpoint(LeaseRef.of(first.lease().id(), 2), Map.of("pages", 99), null));
		this.client.release(first.lease(), "handing over");
		assertThatExceptionOfType(LeaseEnded.class)
			.isThrownBy(() -> this.client.checkpoint(first.lease(), Map.of("pages", 99), null));
		Claim second = this.client.claim(ClaimRequest.forWorker("w2").withQueues("checkpointed")).orElseThrow();
		assertThat(second.item().id()).isEqualTo(item.id());
		assertThat(second.item().checkpoint().seq()).isEqualTo(1);
		assertThat(second.item().checkpoint().data().path("pages").asInt()).isEqualTo(40);
	}

	@Test
	void aFailureCountsAnAttemptAndIsFenced() {
		Item item = this.client.createItem(NewItem.titled("flaky").withQueue("failing"));
		Claim claim = this.client.claim(ClaimRequest.forWorker("w").withQueues("failing")).orElseThrow();
		EndedLease failed = this.client.fail(claim.lease(), Map.of("message", "503 upstream"), null, null);
		assertThat(failed.lease().outcome()).isEqualTo(LeaseOutcome.FAILED);
		assertThat(failed.item().attempts()).isEqualTo(1);
		assertThat(failed.item().id()).isEqualTo(item.id());
		assertThatExceptionOfType(LeaseEnded.class)
			.isThrownBy(() -> this.client.fail(claim.lease(), Map.of("message", "again"), null, null));
	}

	@Test
	void invalidRequestsNameTheirFields() {
		assertThatExceptionOfType(ValidationFailed.class)
			.isThrownBy(() -> this.client.createItem(NewItem.titled("").withQueue("Not A Queue")))
			.satisfies((failed) -> {
				assertThat(failed.concerns("title")).isTrue();
				assertThat(failed.concerns("queue")).isTrue();
			});
	}

	@Test
	void dependenciesAreAddedRemovedAndKeptAcyclic() {
		Item build = this.client.createItem(NewItem.titled("build"));
		Item deploy = this.client.createItem(NewItem.titled("deploy").withDependsOn(build.id()));
		assertThat(deploy.status()).isEqualTo(ItemStatus.BLOCKED);
		Item notes = this.client.createItem(NewItem.titled("notes"));
		assertThat(this.client.addDependency(notes.id(), deploy.id()).status()).isEqualTo(ItemStatus.BLOCKED);
		this.client.removeDependency(notes.id(), deploy.id());
		assertThat(this.client.getItem(notes.id()).status()).isEqualTo(ItemStatus.READY);
		assertThatExceptionOfType(DependencyCycle.class)
			.isThrownBy(() -> this.client.addDependency(build.id(), deploy.id()))
			.satisfies((cycle) -> assertThat(cycle.cycle()).contains(build.id().toString(), deploy.id().toString()));
	}

	@Test
	void anOperatorCancelsAnItemOnce() {
		Item item = this.client.createItem(NewItem.titled("cancel me"));
		Item cancelled = this.client.cancelItem(item.id(), "changed our mind");
		assertThat(cancelled.status()).isEqualTo(ItemStatus.CANCELLED);
		assertThat(cancelled.cancelReason()).isEqualTo("changed our mind");
		assertThatExceptionOfType(ItemTerminal.class).isThrownBy(() -> this.client.cancelItem(item.id(), null));
	}

	@Test
	void aLeaseIsClaimedRenewedAndCompletedAndIsFencedAfterwards() {
		Item item = this.client.createItem(NewItem.titled("summarise").withQueue("writing"));
		assertThat(this.client.claim(ClaimRequest.forWorker("w").withQueues("elsewhere"))).isEmpty();
		Claim claim = this.client.claim(ClaimRequest.forWorker("w").withQueues("writing").withLeaseSeconds(60))
			.orElseThrow();
		assertThat(claim.item().id()).isEqualTo(item.id());
		assertThat(claim.lease().epoch()).isEqualTo(1);
		assertThat(claim.lease().grantedLength()).hasSeconds(60);
		Lease renewed = this.client.renew(claim.lease(), 120);
		assertThat(renewed.grantedLength()).hasSeconds(120);
		assertThatExceptionOfType(EpochMismatch.class)
			.isThrownBy(() -> this.client.complete(LeaseRef.of(claim.lease().id(), 7), null));
		EndedLease done = this.client.complete(claim.lease(), Map.of("summary", "disk full"));
		assertThat(done.lease().outcome()).isEqualTo(LeaseOutcome.COMPLETED);
		assertThat(done.item().status()).isEqualTo(ItemStatus.COMPLETED);
		assertThat(done.item().result().path("summary").asString()).isEqualTo("disk full");
		assertThatExceptionOfType(LeaseEnded.class).isThrownBy(() -> this.client.complete(claim.lease(), null))
			.satisfies((ended) -> {
				assertThat(ended.leaseId()).isEqualTo(claim.lease().id());
				assertThat(ended.presentedEpoch()).isEqualTo(1);
				assertThat(ended.currentEpoch()).isEqualTo(1);
			});
		assertThat(this.client.getLease(claim.lease().id()).outcome()).isEqualTo(LeaseOutcome.COMPLETED);
		assertThat(this.client.leasesOfItem(item.id())).extracting(Lease::outcome)
			.containsExactly(LeaseOutcome.COMPLETED);
		assertThatExceptionOfType(NotFound.class).isThrownBy(() -> this.client.getLease(UUID.randomUUID()));
	}

	@Test
	void anExpiredLeaseIsRefusedAsExpired() {
		this.client.createItem(NewItem.titled("slow"));
		Claim claim = this.client.claim(ClaimRequest.forWorker("w")).orElseThrow();
		expireLease(claim.lease().id());
		assertThatExceptionOfType(LeaseExpired.class).isThrownBy(() -> this.client.renew(claim.lease(), null));
	}

	@Test
	void releaseAndCancelEndTheLease() {
		Item first = this.client.createItem(NewItem.titled("release me"));
		Claim claim = this.client.claim(ClaimRequest.forWorker("w")).orElseThrow();
		EndedLease released = this.client.release(claim.lease(), "not my kind of work");
		assertThat(released.lease().outcome()).isEqualTo(LeaseOutcome.RELEASED);
		assertThat(released.lease().reason()).isEqualTo("not my kind of work");
		assertThat(released.item().status()).isEqualTo(ItemStatus.READY);
		Claim again = this.client.claim(ClaimRequest.forWorker("w2")).orElseThrow();
		assertThat(again.item().id()).isEqualTo(first.id());
		assertThat(again.lease().epoch()).isEqualTo(2);
		EndedLease cancelled = this.client.cancel(again.lease(), "pointless");
		assertThat(cancelled.item().status()).isEqualTo(ItemStatus.CANCELLED);
	}

	@Test
	void decomposingCreatesChildrenAndTheParentWaitsForThem() {
		Item parent = this.client.createItem(NewItem.titled("migrate billing").withQueue("plans"));
		Claim claim = this.client.claim(ClaimRequest.forWorker("planner").withQueues("plans")).orElseThrow();
		Decomposed decomposed = this.client.decompose(claim.lease(),
				List.of(NewChild.of("schema", "Write the schema").withQueue("db"),
						NewChild.of("backfill", "Backfill invoices").withQueue("db").withDependsOn("schema")),
				"two steps");
		assertThat(decomposed.lease().outcome()).isEqualTo(LeaseOutcome.DECOMPOSED);
		assertThat(decomposed.item().status()).isEqualTo(ItemStatus.BLOCKED);
		assertThat(decomposed.children()).extracting(Item::title)
			.containsExactlyInAnyOrder("Write the schema", "Backfill invoices");
		for (int i = 0; i < 2; i++) {
			Claim step = this.client.claim(ClaimRequest.forWorker("db").withQueues("db")).orElseThrow();
			this.client.complete(step.lease(), Map.of("step", step.item().title()));
		}
		Claim again = this.client.claim(ClaimRequest.forWorker("planner").withQueues("plans")).orElseThrow();
		assertThat(again.item().id()).isEqualTo(parent.id());
		assertThat(again.item().children()).allSatisfy((child) -> {
			assertThat(child.status()).isEqualTo(ItemStatus.COMPLETED);
			assertThat(child.result().path("step").asString()).isEqualTo(child.title());
		});
	}

	@Test
	void completingIsRefusedWhileChildrenOrDependenciesAreOpen() {
		Item parent = this.client.createItem(NewItem.titled("parent"));
		Claim claim = this.client.claim(ClaimRequest.forWorker("w")).orElseThrow();
		this.client.createItem(NewItem.titled("late child").withParent(parent.id()).withQueue("later"));
		assertThatExceptionOfType(OpenChildren.class).isThrownBy(() -> this.client.complete(claim.lease(), null));
		this.client.release(claim.lease(), "children first");

		Item other = this.client.createItem(NewItem.titled("other").withQueue("solo"));
		Claim otherClaim = this.client.claim(ClaimRequest.forWorker("w").withQueues("solo")).orElseThrow();
		Item blocker = this.client.createItem(NewItem.titled("blocker").withQueue("never"));
		this.client.addDependency(other.id(), blocker.id());
		assertThatExceptionOfType(UnmetDependencies.class)
			.isThrownBy(() -> this.client.complete(otherClaim.lease(), null));
	}

	@Test
	void humansAnswerQuestionsOnce() {
		Item item = this.client.createItem(NewItem.titled("needs a decision").withQueue("ask"));
		Claim claim = this.client.claim(ClaimRequest.forWorker("asker").withQueues("ask")).orElseThrow();
		AttentionRequest note = this.client.requestAttention(claim.lease(),
				NewAttentionRequest.nonBlocking("FYI: this is slow", Map.of("eta", "1h")));
		assertThat(note.blocking()).isFalse();
		AttentionRequest question = this.client.requestAttention(claim.lease(),
				NewAttentionRequest.blocking("Which region first?", Map.of("regions", List.of("eu", "us"))));
		assertThat(question.blocking()).isTrue();
		assertThat(question.status()).isEqualTo(AttentionRequest.Status.OPEN);
		assertThat(this.client.getLease(claim.lease().id()).outcome()).isEqualTo(LeaseOutcome.ATTENTION_REQUESTED);
		assertThat(this.client.listAttentionRequests(AttentionQuery.open().withItem(item.id())).attentionRequests())
			.extracting(AttentionRequest::id)
			.containsExactlyInAnyOrder(question.id(), note.id());
		assertThat(this.client.getAttentionRequest(question.id()).context().path("regions").size()).isEqualTo(2);
		AttentionRequest answered = this.client.resolveAttentionRequest(question.id(), "eu first", "ana");
		assertThat(answered.isResolved()).isTrue();
		assertThat(answered.resolvedBy()).isEqualTo("ana");
		assertThatExceptionOfType(AlreadyResolved.class)
			.isThrownBy(() -> this.client.resolveAttentionRequest(question.id(), "us", "bo"));
		Claim again = this.client.claim(ClaimRequest.forWorker("asker").withQueues("ask")).orElseThrow();
		assertThat(again.item().answers()).extracting(AttentionRequest::resolution).contains("eu first");
	}

	@Test
	void batchClaimsGrantEachItemItsOwnLease() {
		for (int i = 0; i < 5; i++) {
			this.client.createItem(NewItem.titled("batch " + i).withQueue("batch").withPriority(i));
		}
		List<Claim> claims = this.client.claimBatch(BatchClaimRequest.forWorker("w", 3).withQueues("batch"));
		assertThat(claims).hasSize(3);
		assertThat(claims).extracting((claim) -> claim.item().title()).containsExactly("batch 4", "batch 3", "batch 2");
		assertThat(claims).extracting((claim) -> claim.lease().id()).doesNotHaveDuplicates();
		assertThat(this.client.claimBatch(BatchClaimRequest.forWorker("w", 10).withQueues("batch"))).hasSize(2);
		assertThat(this.client.claimBatch(BatchClaimRequest.forWorker("w", 10).withQueues("batch"))).isEmpty();
	}

	@Test
	void batchCompletionsAreFencedOneByOne() {
		this.client.createItem(NewItem.titled("a"));
		this.client.createItem(NewItem.titled("b"));
		Claim a = this.client.claim(ClaimRequest.forWorker("w")).orElseThrow();
		Claim b = this.client.claim(ClaimRequest.forWorker("w")).orElseThrow();
		this.client.release(b.lease(), "gone");
		List<CompletionResult> results = this.client
			.completeAll(List.of(Completion.of(a.lease(), Map.of("ok", true)), Completion.of(b.lease(), null)));
		assertThat(results).extracting(CompletionResult::leaseId).containsExactly(a.lease().id(), b.lease().id());
		assertThat(results.get(0).isCompleted()).isTrue();
		assertThat(results.get(0).lease().outcome()).isEqualTo(LeaseOutcome.COMPLETED);
		assertThat(results.get(1).status()).isEqualTo(409);
		assertThat(results.get(1).failure()).isInstanceOf(LeaseEnded.class);
	}

}
