package dev.workgraph.mcp;

import java.net.URI;
import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * @param enabled whether {@code /mcp} is served
 * @param leaseSeconds the lease length the session's claims ask for; the session renews
 * every third of it
 * @param idleTimeout how long a session may go without a request before it is forgotten:
 * it stops renewing, and its lease expires as a crashed worker's would
 * @param renewCheckInterval how often the sessions' leases are looked at for renewal
 * @param serviceUrl where the tools send the HTTP calls they stand for; by default this
 * instance's own port on the loopback interface (set it when the service listens only on
 * another address, or only with TLS)
 */
@ConfigurationProperties("workgraph.mcp")
record McpProperties(@DefaultValue("true") boolean enabled, @DefaultValue("60") int leaseSeconds,
		@DefaultValue("30m") Duration idleTimeout, @DefaultValue("1s") Duration renewCheckInterval, URI serviceUrl) {

	McpProperties {
		if (leaseSeconds < 3) {
			throw new IllegalArgumentException("workgraph.mcp.lease-seconds must be at least 3");
		}
		if (idleTimeout.isNegative() || idleTimeout.isZero()) {
			throw new IllegalArgumentException("workgraph.mcp.idle-timeout must be positive");
		}
	}

	/** How long the session waits between two renewals of its lease. */
	Duration renewEvery() {
		return Duration.ofSeconds(this.leaseSeconds).dividedBy(3);
	}

}
