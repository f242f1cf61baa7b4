package dev.workgraph.client;

import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A question for a human. A blocking one (the default) ends the lease with outcome
 * {@code attention_requested} and holds the item until it is answered; a non-blocking one
 * leaves the lease active.
 *
 * @param question 1–20,000 characters
 * @param blocking whether the item waits for the answer
 * @param context a JSON object to help the human answer
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NewAttentionRequest(String question, boolean blocking, Object context) {

	public NewAttentionRequest {
		Objects.requireNonNull(question, "question");
	}

	/** A blocking question: the item waits for the answer. */
	public static NewAttentionRequest blocking(String question, Object context) {
		return new NewAttentionRequest(question, true, context);
	}

	/** A question whose answer the item does not wait for; the lease stays active. */
	public static NewAttentionRequest nonBlocking(String question, Object context) {
		return new NewAttentionRequest(question, false, context);
	}

}
