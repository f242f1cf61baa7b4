package dev.workgraph.access;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code workgraph.security.*}.
 *
 * @param enabled access control on (the default); {@code false} serves everyone, for
 * local experiments and tests that are not about access
 * @param bootstrapAdminToken a secret accepted as an admin token named {@code bootstrap},
 * or null
 */
@ConfigurationProperties("workgraph.security")
record AccessProperties(Boolean enabled, String bootstrapAdminToken) {

	AccessProperties {
		enabled = (enabled == null) || enabled;
		bootstrapAdminToken = (bootstrapAdminToken != null && !bootstrapAdminToken.isBlank()) ? bootstrapAdminToken
				: null;
	}

}
