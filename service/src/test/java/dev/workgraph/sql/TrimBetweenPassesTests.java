package dev.workgraph.sql;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A trim goes a batch per step while batches come back full, then waits its interval. */
class TrimBetweenPassesTests {

	private final Deque<Integer> answers = new ArrayDeque<>();

	private final List<Integer> trimmed = new ArrayList<>();

	private Instant now = Instant.parse("2026-12-07T08:00:00Z");

	private TrimBetweenPasses trim(Duration interval) {
		return new TrimBetweenPasses(interval, 10, () -> {
			int batch = this.answers.isEmpty() ? 0 : this.answers.removeFirst();
			this.trimmed.add(batch);
			return batch;
		}, () -> this.now);
	}

	@Test
	void aBacklogIsTrimmedOneBatchPerStepUntilABatchComesBackShort() {
		TrimBetweenPasses trim = trim(Duration.ofHours(1));
		this.answers.addAll(List.of(10, 10, 4));
		trim.step();
		assertThat(this.trimmed).as("one batch per step").containsExactly(10);
		trim.step();
		trim.step();
		assertThat(this.trimmed).containsExactly(10, 10, 4);
		trim.step();
		trim.step();
		assertThat(this.trimmed).as("done until the interval has passed").containsExactly(10, 10, 4);
	}

	@Test
	void theNextTrimIsDueAfterTheInterval() {
		TrimBetweenPasses trim = trim(Duration.ofMinutes(1));
		trim.step();
		assertThat(this.trimmed).containsExactly(0);
		this.now = this.now.plusSeconds(59);
		trim.step();
		assertThat(this.trimmed).containsExactly(0);
		this.now = this.now.plusSeconds(2);
		trim.step();
		assertThat(this.trimmed).containsExactly(0, 0);
	}

}
