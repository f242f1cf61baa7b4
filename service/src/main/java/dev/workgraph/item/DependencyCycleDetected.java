package dev.workgraph.item;

import java.util.List;
import java.util.stream.Collectors;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;

/**
 * The change would make the wait-for graph cyclic. {@code cycle} lists the items (or,
 * inside one decompose request, the child keys) around the cycle, starting and ending
 * with the same one.
 */
public class DependencyCycleDetected extends RequestRejected {

	public DependencyCycleDetected(List<?> cycle) {
		super(ProblemCode.DEPENDENCY_CYCLE, "The change would create a wait-for cycle: "
				+ cycle.stream().map(String::valueOf).collect(Collectors.joining(" -> ")));
		with("cycle", cycle.stream().map(String::valueOf).toList());
	}

}
