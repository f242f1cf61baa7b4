package dev.workgraph.client.problem;

import java.time.Duration;

/**
 * {@code item_terminal} (409): the item is completed or cancelled, and stays so. Nothing
 * to retry.
 */
public class ItemTerminal extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public ItemTerminal(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

}
