package dev.workgraph.webhook;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Posts one message to a target, signed, and says how it went. Redirects are followed
 * only to the same scheme, host and port, and only those that keep the POST (307, 308): a
 * target cannot send the service's signed changes, or its requests, somewhere else.
 */
class WebhookSender {

	static final int MAX_REDIRECTS = 3;

	private static final int MAX_ERROR = 500;

	private final HttpClient client;

	private final Duration timeout;

	WebhookSender(Duration connectTimeout, Duration timeout) {
		this.client = HttpClient.newBuilder()
			.connectTimeout(connectTimeout)
			.followRedirects(HttpClient.Redirect.NEVER)
			.build();
		this.timeout = timeout;
	}

	/**
	 * Posts the body; returns the answer's status, or the failure when there was none.
	 * Blocks for at most the timeout per request.
	 */
	Sent send(String url, String messageId, String secret, byte[] body) throws InterruptedException {
		long timestamp = System.currentTimeMillis() / 1000;
		String signature = WebhookSecrets.sign(secret, messageId, timestamp, body);
		URI target = URI.create(url);
		for (int redirects = 0;; redirects++) {
			HttpRequest request = HttpRequest.newBuilder(target)
				.timeout(this.timeout)
				.header("Content-Type", "application/json")
				.header("User-Agent", "work-graph-webhooks")
				.header("webhook-id", messageId)
				.header("webhook-timestamp", Long.toString(timestamp))
				.header("webhook-signature", signature)
				.POST(HttpRequest.BodyPublishers.ofByteArray(body))
				.build();
			HttpResponse<Void> response;
			try {
				response = this.client.send(request, HttpResponse.BodyHandlers.discarding());
			}
			catch (HttpTimeoutException ex) {
				return Sent.failed(null, "no answer within " + this.timeout.toMillis() + " ms");
			}
			catch (IOException ex) {
				return Sent.failed(null, "could not post: " + describe(ex));
			}
			int status = response.statusCode();
			if (status >= 200 && status < 300) {
				return new Sent(status, null);
			}
			if (status < 300 || status >= 400) {
				return Sent.failed(status, "answered " + status);
			}
			String location = response.headers().firstValue("Location").orElse(null);
			if (location == null) {
				return Sent.failed(status, "answered " + status + " without a Location");
			}
			URI next;
			try {
				next = target.resolve(location);
			}
			catch (IllegalArgumentException ex) {
				return Sent.failed(status, "answered " + status + " with a Location that is no URL");
			}
			if (!sameOrigin(target, next)) {
				return Sent.failed(status, "redirected to " + next.getScheme() + "://" + next.getAuthority()
						+ ", another host: redirects are followed only on the same host");
			}
			if ((status != 307 && status != 308) || redirects == MAX_REDIRECTS) {
				return Sent.failed(status, "answered " + status + " (redirects are followed only when they keep "
						+ "the POST, 307 and 308, at most " + MAX_REDIRECTS + " times)");
			}
			target = next;
		}
	}

	private static boolean sameOrigin(URI a, URI b) {
		return b.getScheme() != null && b.getHost() != null && a.getScheme().equalsIgnoreCase(b.getScheme())
				&& a.getHost().toLowerCase(Locale.ROOT).equals(b.getHost().toLowerCase(Locale.ROOT))
				&& port(a) == port(b);
	}

	private static int port(URI uri) {
		return (uri.getPort() != -1) ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
	}

	private static String describe(IOException ex) {
		String message = Objects.requireNonNullElse(ex.getMessage(), "");
		String text = ex.getClass().getSimpleName().replace("Exception", "")
				+ (message.isEmpty() ? "" : ": " + message);
		return (text.length() > MAX_ERROR) ? text.substring(0, MAX_ERROR) : text;
	}

	/**
	 * How an attempt went.
	 *
	 * @param status the target's HTTP status; null when it did not answer
	 * @param error why it failed; null when it was delivered (a 2xx answer)
	 */
	record Sent(Integer status, String error) {

		static Sent failed(Integer status, String error) {
			return new Sent(status, error);
		}

		boolean delivered() {
			return this.error == null;
		}

	}

}
