package dev.workgraph.client.problem;

import java.time.Duration;
import java.util.List;

import tools.jackson.databind.JsonNode;

/**
 * {@code dependency_cycle} (422): the change would make the wait-for graph cyclic.
 * {@link #cycle()} lists the items (or decompose keys) around the cycle; change the plan.
 */
public class DependencyCycle extends RequestRejected {

	private static final long serialVersionUID = 1L;

	public DependencyCycle(Problem problem, Duration retryAfter) {
		super(problem, retryAfter);
	}

	/** The item ids (or decompose keys) around the cycle, in order. */
	public List<String> cycle() {
		return problem().list("cycle", JsonNode::asString);
	}

}
