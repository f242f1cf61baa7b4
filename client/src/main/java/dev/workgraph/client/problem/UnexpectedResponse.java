package dev.workgraph.client.problem;

/**
 * The answer could not be understood: a status this API never sends for the request, or a
 * body that is not the JSON expected. Usually something other than Work Graph answered (a
 * proxy, another service on that address), or the client and the service disagree on the
 * API version.
 */
public class UnexpectedResponse extends WorkGraphException {

	private static final long serialVersionUID = 1L;

	private final int status;

	public UnexpectedResponse(String message, int status, Throwable cause) {
		super(message, cause);
		this.status = status;
	}

	/** The HTTP status of the answer. */
	public int status() {
		return this.status;
	}

}
