package dev.workgraph.webhook;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

/**
 * The guard of {@code workgraph.webhooks.allowed-hosts}: which targets a webhook may
 * have. Checked when a webhook is created and again before each delivery, so that
 * narrowing the setting stops deliveries to hosts no longer allowed.
 */
final class AllowedHosts {

	private final List<String> patterns;

	AllowedHosts(List<String> patterns) {
		this.patterns = patterns.stream().map((pattern) -> pattern.strip().toLowerCase(Locale.ROOT)).toList();
	}

	/** Why this URL may not be a target, or null when it may. */
	String refusal(String url) {
		URI uri;
		try {
			uri = new URI(url);
		}
		catch (URISyntaxException ex) {
			return "must be an absolute http or https URL";
		}
		String scheme = uri.getScheme();
		if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
				|| uri.getHost() == null) {
			return "must be an absolute http or https URL";
		}
		if (uri.getRawUserInfo() != null) {
			return "must not carry a user name or password (put a secret in the path or use the signature)";
		}
		if (uri.getRawFragment() != null) {
			return "must not have a fragment";
		}
		if (!allows(uri.getHost())) {
			return (this.patterns.isEmpty())
					? "is not allowed: no webhook host is allowed until workgraph.webhooks.allowed-hosts is configured"
					: "has host " + uri.getHost() + ", which workgraph.webhooks.allowed-hosts does not allow";
		}
		return null;
	}

	boolean allows(String host) {
		String name = host.toLowerCase(Locale.ROOT);
		if (name.startsWith("[") && name.endsWith("]")) {
			name = name.substring(1, name.length() - 1);
		}
		for (String pattern : this.patterns) {
			if (pattern.equals("*") || pattern.equals(name)
					|| (pattern.startsWith("*.") && name.endsWith(pattern.substring(1)))) {
				return true;
			}
		}
		return false;
	}

}
