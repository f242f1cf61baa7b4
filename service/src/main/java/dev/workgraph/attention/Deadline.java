package dev.workgraph.attention;

import dev.workgraph.problem.InvalidRequest;

/**
 * A question's deadline, checked: seconds from now and the action at it
 * ({@code escalate}, {@code default}, {@code cancel}), with the default answer or the
 * escalation's label. {@link #NONE} for a question without one.
 */
record Deadline(Integer seconds, String action, String resolution, String escalateTo) {

	static final Deadline NONE = new Deadline(null, null, null, null);

	/** The longest deadline: a year. */
	static final long MAX_SECONDS = 31_536_000;

	static Deadline of(Long timeoutSeconds, RaiseRequest.OnTimeout onTimeout) {
		if (timeoutSeconds == null) {
			if (onTimeout != null) {
				throw new InvalidRequest("onTimeout", "needs timeoutSeconds");
			}
			return NONE;
		}
		if (timeoutSeconds < 1 || timeoutSeconds > MAX_SECONDS) {
			throw new InvalidRequest("timeoutSeconds", "must be between 1 and " + MAX_SECONDS);
		}
		String action = (onTimeout != null) ? onTimeout.action() : "escalate";
		String resolution = (onTimeout != null) ? onTimeout.resolution() : null;
		String escalateTo = (onTimeout != null) ? onTimeout.escalateTo() : null;
		switch (action) {
			case "default" -> {
				if (resolution == null) {
					throw new InvalidRequest("onTimeout.resolution", "is required for the action default");
				}
			}
			case "escalate", "cancel" -> {
				if (resolution != null) {
					throw new InvalidRequest("onTimeout.resolution", "is only for the action default");
				}
			}
			default -> throw new InvalidRequest("onTimeout.action", "must be one of escalate, default, cancel");
		}
		if (escalateTo != null && !"escalate".equals(action)) {
			throw new InvalidRequest("onTimeout.escalateTo", "is only for the action escalate");
		}
		return new Deadline(timeoutSeconds.intValue(), action, resolution, escalateTo);
	}

}
