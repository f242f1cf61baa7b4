package dev.workgraph.lease.claim;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param continuityWindow how long after an item becomes ready again the worker whose
 * lease ended with an attention request is preferred for it (docs/http-api.md,
 * "Continuity preference"); zero turns the preference off
 */
@ConfigurationProperties("workgraph.attention")
record ContinuityProperties(@DefaultValue("10m") Duration continuityWindow) {

	ContinuityProperties {
		if (continuityWindow.isNegative()) {
			throw new IllegalArgumentException("workgraph.attention.continuity-window must not be negative");
		}
	}

}
