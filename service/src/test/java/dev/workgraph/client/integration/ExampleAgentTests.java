package dev.workgraph.client.integration;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.workgraph.client.AttentionQuery;
import dev.workgraph.client.AttentionRequest;
import dev.workgraph.client.Item;
import dev.workgraph.client.ItemStatus;
import dev.workgraph.client.Lease;
import dev.workgraph.client.LeaseOutcome;
import dev.workgraph.examples.ExampleAgent;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example agent runs a demo plan on the real service to its end: it decomposes the
 * plan, works on the steps in order, asks a human before deploying, goes on with the
 * answer, and sums the plan up.
 */
class ExampleAgentTests extends WorkerClientTest {

	@Test
	void theExampleAgentCarriesTheDemoPlanThroughWithAHumansApproval() throws Exception {
		Item plan = ExampleAgent.seed(this.client, "examples");
		started(ExampleAgent.worker(this.client, "example-agent", "examples", 2, 6));
		AttentionRequest question = awaitQuestion(plan.id());
		assertThat(question.question()).contains("May I deploy release 1.4");
		assertThat(question.workerId()).isEqualTo("example-agent");
		this.client.resolveAttentionRequest(question.id(), "Yes, go ahead", "release-manager");
		Item done = Items.awaitStatus(this.client, plan.id(), ItemStatus.COMPLETED, Duration.ofSeconds(90));
		assertThat(done.result().path("steps").size()).isEqualTo(4);
		assertThat(done.result().path("steps").path("Approve the production deployment").path("answer").asString())
			.isEqualTo("Yes, go ahead");
		assertThat(done.children()).extracting(Item.Child::status).containsOnly(ItemStatus.COMPLETED);
		assertThat(this.client.leasesOfItem(plan.id())).extracting(Lease::outcome)
			.containsExactly(LeaseOutcome.DECOMPOSED, LeaseOutcome.COMPLETED);
		UUID approval = done.children()
			.stream()
			.filter((child) -> child.title().startsWith("Approve"))
			.findFirst()
			.orElseThrow()
			.id();
		assertThat(this.client.leasesOfItem(approval)).extracting(Lease::outcome)
			.containsExactly(LeaseOutcome.ATTENTION_REQUESTED, LeaseOutcome.COMPLETED);
	}

	private AttentionRequest awaitQuestion(UUID planId) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (System.nanoTime() < deadline) {
			List<AttentionRequest> open = this.client.listAttentionRequests(AttentionQuery.open()).attentionRequests();
			for (AttentionRequest request : open) {
				Item item = this.client.getItem(request.itemId());
				if (planId.equals(item.parentId())) {
					return request;
				}
			}
			Thread.sleep(100);
		}
		throw new AssertionError("the agent asked no question");
	}

}
