package dev.workgraph.client.worker;

import java.util.Objects;

/** What to do with an item whose handler failed, decided by a {@link FailurePolicy}. */
public sealed interface FailureAction
		permits FailureAction.Fail, FailureAction.Release, FailureAction.AskHuman, FailureAction.Cancel {

	/**
	 * End the lease {@code failed} with this error (a JSON-serialisable object): the
	 * service counts an attempt and, by the item's retry policy, backs off and retries it
	 * or holds it for a human; {@code retryable} false holds it at once.
	 */
	static FailureAction fail(Object error, boolean retryable) {
		return new Fail(error, retryable);
	}

	/** Give the item back to the queue. */
	static FailureAction release(String reason) {
		return new Release(reason);
	}

	/** Pause the item with a blocking question: it waits until a human answers. */
	static FailureAction askHuman(String question, Object context) {
		return new AskHuman(question, context);
	}

	/** Cancel the item (and its open descendants). */
	static FailureAction cancel(String reason) {
		return new Cancel(reason);
	}

	/** Fail with this error. */
	record Fail(Object error, boolean retryable) implements FailureAction {

		public Fail {
			Objects.requireNonNull(error, "error");
		}

	}

	/** Release with this reason. */
	record Release(String reason) implements FailureAction {
	}

	/** Ask this blocking question, with this context. */
	record AskHuman(String question, Object context) implements FailureAction {

		public AskHuman {
			Objects.requireNonNull(question, "question");
		}

	}

	/** Cancel with this reason. */
	record Cancel(String reason) implements FailureAction {
	}

}
