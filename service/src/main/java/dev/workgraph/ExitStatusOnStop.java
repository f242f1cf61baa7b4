package dev.workgraph;

import java.util.List;

import sun.misc.Signal;

/**
 * The exit status after a stop that was asked for. On SIGINT (Ctrl-C) or SIGTERM the JVM
 * runs its shutdown hooks, the service's graceful shutdown among them, and exits with 128
 * plus the signal's number: 130 or 143. {@code ./mvnw spring-boot:run} counts only 0 and
 * 130 as success, and it stops the service with SIGTERM when Ctrl-C reached Maven alone
 * (an IDE's stop button) and the service had not ended within 5 s, or when the service
 * itself is sent SIGTERM, and then ends a clean stop with {@code BUILD FAILURE}. With
 * {@value #PROPERTY} set (the build sets 0 for {@code spring-boot:run}), the process
 * exits with that status instead, after the same shutdown. Unset, as in the jar and the
 * container image, the JVM's statuses stand.
 */
final class ExitStatusOnStop {

	static final String PROPERTY = "workgraph.exit-status-on-stop";

	private ExitStatusOnStop() {
	}

	static void install() {
		String status = System.getProperty(PROPERTY);
		if (status == null || status.isBlank()) {
			return;
		}
		int exitStatus = Integer.parseInt(status.strip());
		for (String name : List.of("INT", "TERM")) {
			try {
				// What the JVM's own handler does (System.exit runs the shutdown hooks),
				// with another status.
				Signal.handle(new Signal(name), (signal) -> System.exit(exitStatus));
			}
			catch (IllegalArgumentException ex) {
				// No such signal on this platform (Windows has no SIGTERM).
			}
		}
	}

}
