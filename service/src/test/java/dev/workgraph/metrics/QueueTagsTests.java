package dev.workgraph.metrics;

import java.util.List;
import java.util.stream.IntStream;

import dev.workgraph.testing.Concurrently;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class QueueTagsTests {

	@Test
	void theFirstQueuesKeepTheirNamesAndLaterOnesShareOther() {
		QueueTags tags = new QueueTags(2);
		assertThat(tags.of("a")).isEqualTo("a");
		assertThat(tags.of("b")).isEqualTo("b");
		assertThat(tags.of("c")).isEqualTo(QueueTags.OTHER);
		assertThat(tags.of("a")).isEqualTo("a");
		assertThat(new QueueTags(0).of("a")).isEqualTo(QueueTags.OTHER);
	}

	@Test
	void concurrentNewQueuesNeverExceedTheLimit() {
		QueueTags tags = new QueueTags(10);
		List<String> answers = Concurrently.run(64, (i) -> tags.of("q" + i));
		assertThat(answers.stream().filter((tag) -> !tag.equals(QueueTags.OTHER)).distinct()).hasSize(10);
		// Whoever got its own tag keeps it.
		IntStream.range(0, 64)
			.filter((i) -> !answers.get(i).equals(QueueTags.OTHER))
			.forEach((i) -> assertThat(tags.of("q" + i)).isEqualTo("q" + i));
	}

}
