package dev.workgraph.wait;

import java.util.Locale;

import dev.workgraph.problem.InvalidRequest;

/** What a wait's deadline does to its item. */
enum OnTimeout {

	/** The wait's blocker clears: the item runs again without the event. */
	READY,
	/** The item (and its open descendants) is cancelled. */
	CANCEL,
	/** A blocking system attention request of kind {@code wait_timed_out} opens. */
	ASK;

	String wire() {
		return name().toLowerCase(Locale.ROOT);
	}

	/** The wire name given in a request ({@code null}: ready); 422 for anything else. */
	static OnTimeout parse(String given) {
		if (given == null) {
			return READY;
		}
		for (OnTimeout value : values()) {
			if (value.wire().equals(given)) {
				return value;
			}
		}
		throw new InvalidRequest("onTimeout", "must be one of ready, cancel, ask");
	}

	static OnTimeout fromWire(String wire) {
		return valueOf(wire.toUpperCase(Locale.ROOT));
	}

}
