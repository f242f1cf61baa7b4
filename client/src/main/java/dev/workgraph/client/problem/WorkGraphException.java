package dev.workgraph.client.problem;

/**
 * Everything the client throws: the service refused a request ({@link RequestRejected}
 * and its subclasses, one per problem {@code code}), no answer came
 * ({@link ServiceUnreachable}), the calling thread was interrupted
 * ({@link RequestInterrupted}), or the answer made no sense ({@link UnexpectedResponse}).
 * Unchecked, so that code that cannot handle a failure does not have to mention it.
 */
public abstract class WorkGraphException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	protected WorkGraphException(String message, Throwable cause) {
		super(message, cause);
	}

	/**
	 * Whether the same request may succeed if sent again later (the service is restarting
	 * or overloaded, or the network failed), as opposed to a request that will be refused
	 * again however often it is sent.
	 */
	public boolean isTransient() {
		return false;
	}

}
