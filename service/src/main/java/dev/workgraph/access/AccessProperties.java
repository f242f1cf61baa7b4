package dev.workgraph.access;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code workgraph.security.*}.
 *
 * @param enabled access control on (the default); {@code false} serves everyone, for
 * local experiments and tests that are not about access
 * @param bootstrapAdminToken a secret accepted as an admin token named {@code bootstrap},
 * or null; at least {@value #MIN_BOOTSTRAP_TOKEN_LENGTH} characters, so that a guessable
 * word such as {@code admin} cannot become an admin token
 */
@ConfigurationProperties("workgraph.security")
record AccessProperties(Boolean enabled, String bootstrapAdminToken) {

	/**
	 * 22 base64url characters carry 132 bits: the shortest random secret worth having.
	 */
	static final int MIN_BOOTSTRAP_TOKEN_LENGTH = 22;

	AccessProperties {
		enabled = (enabled == null) || enabled;
		bootstrapAdminToken = (bootstrapAdminToken != null && !bootstrapAdminToken.isBlank()) ? bootstrapAdminToken
				: null;
		if (bootstrapAdminToken != null && bootstrapAdminToken.length() < MIN_BOOTSTRAP_TOKEN_LENGTH) {
			throw new IllegalArgumentException("workgraph.security.bootstrap-admin-token must be at least "
					+ MIN_BOOTSTRAP_TOKEN_LENGTH + " characters of random text (e.g. openssl rand -base64 32), not "
					+ bootstrapAdminToken.length());
		}
	}

}
