package dev.workgraph.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** Who asked an attention request. */
public enum RaisedBy {

	/** A worker, on its lease. */
	WORKER,
	/** The crash-loop guard, which holds an item whose leases keep expiring. */
	SYSTEM;

	@JsonValue
	public String wire() {
		return Wire.name(this);
	}

	public static RaisedBy fromWire(String value) {
		return Wire.parse(RaisedBy.class, value);
	}

}
