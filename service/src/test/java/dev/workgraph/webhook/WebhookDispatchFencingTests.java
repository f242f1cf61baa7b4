package dev.workgraph.webhook;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.workgraph.testing.Concurrently;
import dev.workgraph.testing.ServiceTest;
import dev.workgraph.webhook.Webhooks.Attempt;
import dev.workgraph.webhook.Webhooks.Dispatch;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One dispatcher at a time per webhook: many dispatchers race to take a webhook whose
 * holder's time ran out, at most one wins, and the one it replaced writes nothing
 * afterwards, whatever it tries. The service's own dispatcher races along.
 */
class WebhookDispatchFencingTests extends ServiceTest {

	private static final Duration HOLD = Duration.ofMinutes(5);

	@Autowired
	private Webhooks webhooks;

	@Test
	void aWebhookIsTakenByOneDispatcherAtATimeAndTheReplacedOneWritesNothing() {
		createItem("something to deliver", "queue", "fencing");
		for (int round = 0; round < 10; round++) {
			UUID id = UUID.randomUUID();
			// Held by a dispatcher at epoch 5 (port 1: nobody listens there).
			this.jdbc.sql("""
					insert into webhooks (id, url, secret, cursor, dispatch_epoch, dispatch_until)
					values (:id, 'http://127.0.0.1:1/hook', 'whsec_MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIz', 0, 5,
					        now() + interval '1 hour')
					""").param("id", id).update();
			Dispatch stale = new Dispatch(id, "http://127.0.0.1:1/hook", List.of(),
					"whsec_MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIz", 0, 0, 5);
			assertThat(taken(Concurrently.run(8, (i) -> this.webhooks.takeDue(HOLD, 100)), id))
				.as("held: nobody takes it")
				.isEmpty();

			// Its hold runs out: everyone races for it.
			this.jdbc.sql("update webhooks set dispatch_until = now() - interval '1 second' where id = :id")
				.param("id", id)
				.update();
			List<Dispatch> winners = taken(Concurrently.run(16, (i) -> this.webhooks.takeDue(HOLD, 100)), id);
			long epoch = this.jdbc.sql("select dispatch_epoch from webhooks where id = :id")
				.param("id", id)
				.query(Long.class)
				.single();
			assertThat(winners).as("at most one taker").hasSizeLessThanOrEqualTo(1);
			// The service's own dispatcher may have won instead (and, failing on port 1,
			// taken it again since); either way someone took it from the stale holder.
			assertThat(epoch).isGreaterThanOrEqualTo(6);
			winners.forEach((winner) -> assertThat(winner.epoch()).isEqualTo(epoch));

			// The replaced dispatcher finds every write refused.
			Attempt attempt = new Attempt(1, "msg_stale_1", 1, 200, null, 3);
			assertThat(this.webhooks.recordDelivered(stale, attempt, HOLD)).isFalse();
			Attempt failure = new Attempt(1, "msg_stale_1", 1, 500, "answered 500", 3);
			assertThat(this.webhooks.recordFailed(stale, failure, Duration.ofSeconds(1), Duration.ofHours(25)))
				.isEqualTo(Optional.empty());
			assertThat(this.webhooks.passOver(stale, 1_000_000, HOLD)).isFalse();
			this.webhooks.disable(stale, "a stale dispatcher's opinion");
			this.webhooks.release(stale);
			assertThat(this.jdbc.sql("""
					select cursor = 0 and disabled_at is null and dispatch_epoch >= 6
					       and not exists (select from webhook_deliveries where message_id = 'msg_stale_1')
					from webhooks where id = :id
					""").param("id", id).query(Boolean.class).single()).isTrue();
			this.jdbc.sql("delete from webhooks where id = :id").param("id", id).update();
		}
	}

	private static List<Dispatch> taken(List<List<Dispatch>> results, UUID id) {
		return results.stream().flatMap(List::stream).filter((dispatch) -> dispatch.id().equals(id)).toList();
	}

}
