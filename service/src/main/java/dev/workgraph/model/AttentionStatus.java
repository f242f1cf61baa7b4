package dev.workgraph.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** Whether an attention request still waits for its answer. */
public enum AttentionStatus {

	/** Asked and not answered; a blocking one holds its item. */
	OPEN,
	/** Answered by a human, or by the system when its item was cancelled. */
	RESOLVED;

	@JsonValue
	public String wire() {
		return Wire.name(this);
	}

	public static AttentionStatus fromWire(String value) {
		return Wire.parse(AttentionStatus.class, value);
	}

}
