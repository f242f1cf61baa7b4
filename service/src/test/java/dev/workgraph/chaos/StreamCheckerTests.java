package dev.workgraph.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.workgraph.chaos.History.Violation;
import dev.workgraph.chaos.ServerHistory.LeaseRow;
import dev.workgraph.chaos.StreamSubscriber.Ended;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stream's checker, on streams made up to break each part of its rule: it must pass
 * the faithful stream and catch every way of breaking it.
 */
class StreamCheckerTests {

	private static final UUID ITEM = UUID.randomUUID();

	private static final UUID OTHER_ITEM = UUID.randomUUID();

	private static final UUID FIRST = UUID.randomUUID();

	private static final UUID SECOND = UUID.randomUUID();

	private static final UUID THIRD = UUID.randomUUID();

	private static final UUID ACTIVE = UUID.randomUUID();

	private final List<LeaseRow> leases = List.of(
			new LeaseRow(FIRST, ITEM, "w1", 1, 100, null, 200, 200L, "expired", false, "alpha"),
			new LeaseRow(SECOND, ITEM, "w2", 2, 300, null, 900, 400L, "completed", false, "alpha"),
			new LeaseRow(THIRD, OTHER_ITEM, "w3", 1, 300, null, 900, 350L, "released", false, "alpha"),
			new LeaseRow(ACTIVE, OTHER_ITEM, "w4", 2, 400, null, 900, null, null, true, "alpha"));

	private final Ended first = new Ended(11, ITEM, FIRST, 1, "expired");

	private final Ended third = new Ended(12, OTHER_ITEM, THIRD, 1, "released");

	private final Ended second = new Ended(15, ITEM, SECOND, 2, "completed");

	@Test
	void aFaithfulStreamPasses() {
		assertThat(StreamChecker.check(List.of(this.first, this.third, this.second), this.leases)).isEmpty();
	}

	@Test
	void aMissingEndingIsCaught() {
		assertThat(details(List.of(this.first, this.second))).singleElement()
			.asString()
			.contains(THIRD.toString())
			.contains("never appeared");
	}

	@Test
	void aRepeatedEventIsCaught() {
		assertThat(details(List.of(this.first, this.third, this.third, this.second)))
			.anyMatch((detail) -> detail.contains("repeated or out of order"))
			.anyMatch((detail) -> detail.contains("ended twice"));
	}

	@Test
	void endingsOfOneItemOutOfCommitOrderAreCaught() {
		Ended secondEarly = new Ended(10, ITEM, SECOND, 2, "completed");
		assertThat(details(List.of(secondEarly, this.first, this.third)))
			.anyMatch((detail) -> detail.contains("the ending of epoch 1 (seq 11) came after that of epoch 2"));
	}

	@Test
	void anEventOfAnUncommittedOrDifferentEndingIsCaught() {
		List<Ended> stream = new ArrayList<>(List.of(this.first, this.third, this.second));
		stream.add(new Ended(16, OTHER_ITEM, ACTIVE, 2, "completed"));
		stream.add(new Ended(17, OTHER_ITEM, UUID.randomUUID(), 3, "completed"));
		assertThat(details(stream)).hasSize(2).allMatch((detail) -> detail.contains("no committed lease ending"));
		Ended misdescribed = new Ended(15, ITEM, SECOND, 2, "released");
		assertThat(details(List.of(this.first, this.third, misdescribed))).singleElement()
			.asString()
			.contains("as released at epoch 2; the database has completed");
	}

	private List<String> details(List<Ended> stream) {
		return StreamChecker.check(stream, this.leases).stream().map(Violation::detail).toList();
	}

}
