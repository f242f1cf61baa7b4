package dev.workgraph.lease;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The no-progress guard (docs/http-api.md, "No-progress guard").
 *
 * @param maxLeasesWithoutProgress leases of an item in a row that may end (released,
 * failed or expired) without progress before the item is held for a human
 */
@ConfigurationProperties("workgraph.progress")
public record ProgressProperties(@DefaultValue("5") int maxLeasesWithoutProgress) {

	public ProgressProperties {
		if (maxLeasesWithoutProgress < 1 || maxLeasesWithoutProgress > 1000) {
			throw new IllegalArgumentException(
					"workgraph.progress.max-leases-without-progress must be between 1 and 1000");
		}
	}

}
