package dev.workgraph.attention;

import dev.workgraph.validation.CompactJson;
import dev.workgraph.validation.Text;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import tools.jackson.databind.JsonNode;

/**
 * Body of {@code POST /leases/{id}/attention-requests}; {@code blocking} defaults to
 * true. {@code timeoutSeconds} sets a deadline, and {@code onTimeout} what happens at it
 * (escalate, when left out).
 */
record RaiseRequest(@NotNull Long epoch, @NotNull @Text(min = 1, max = 20_000) String question, Boolean blocking,
		@CompactJson JsonNode context, Long timeoutSeconds, @Valid OnTimeout onTimeout) {

	/**
	 * What a question's deadline does: {@code escalate} (with an optional
	 * {@code escalateTo} label), {@code default} (answered with {@code resolution}) or
	 * {@code cancel}.
	 */
	record OnTimeout(@NotNull String action, @Text(min = 1, max = 20_000) String resolution,
			@Text(min = 1, max = 200) String escalateTo) {
	}

}
