package dev.workgraph.item;

import com.fasterxml.jackson.annotation.JsonSetter;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * {@code PATCH /queues/{name}}: what to change, each field optional. A class, not a
 * record, because {@code "maxActiveLeases": null} (remove the cap) and a missing
 * {@code maxActiveLeases} (keep it) must differ, and only a setter sees the difference.
 */
class QueueChange {

	private Boolean paused;

	@Min(1)
	@Max(100_000)
	private Integer maxActiveLeases;

	private boolean capGiven;

	public Boolean getPaused() {
		return this.paused;
	}

	public void setPaused(Boolean paused) {
		this.paused = paused;
	}

	public Integer getMaxActiveLeases() {
		return this.maxActiveLeases;
	}

	@JsonSetter
	public void setMaxActiveLeases(Integer maxActiveLeases) {
		this.maxActiveLeases = maxActiveLeases;
		this.capGiven = true;
	}

	boolean capGiven() {
		return this.capGiven;
	}

}
