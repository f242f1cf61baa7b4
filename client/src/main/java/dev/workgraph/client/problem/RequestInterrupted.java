package dev.workgraph.client.problem;

/**
 * The calling thread was interrupted while it waited for an answer; the request was
 * abandoned (the service may or may not have processed it). The thread's interrupt flag
 * is set again, so code further up sees the interrupt too.
 */
public class RequestInterrupted extends WorkGraphException {

	private static final long serialVersionUID = 1L;

	public RequestInterrupted(String message, InterruptedException cause) {
		super(message, cause);
	}

}
