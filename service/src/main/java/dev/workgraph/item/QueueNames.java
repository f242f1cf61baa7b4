package dev.workgraph.item;

/**
 * Queue names (docs/http-api.md, "Work items"): 1–100 characters of {@code [a-z0-9._-]}.
 */
public final class QueueNames {

	public static final String PATTERN = "[a-z0-9._-]{1,100}";

	public static final String MESSAGE = "must be 1 to 100 characters of a-z, 0-9, '.', '_' and '-'";

	public static final String DEFAULT = "default";

	private QueueNames() {
	}

}
