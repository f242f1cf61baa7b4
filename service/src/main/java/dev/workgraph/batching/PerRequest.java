package dev.workgraph.batching;

/**
 * What one request of a batch came to: its value, or the failure it answers with (a
 * rejection such as {@code lease_ended}, or what made its own transaction fail). The
 * requests of a batch are answered one by one, so one request's failure is never
 * another's.
 */
public record PerRequest<T>(T value, RuntimeException failure) {

	public static <T> PerRequest<T> done(T value) {
		return new PerRequest<>(value, null);
	}

	public static <T> PerRequest<T> failed(RuntimeException failure) {
		return new PerRequest<>(null, failure);
	}

	/**
	 * Runs one request on its own: its value, or the failure it threw as its own answer.
	 */
	public static <T> PerRequest<T> alone(java.util.function.Supplier<T> request) {
		try {
			return done(request.get());
		}
		catch (RuntimeException ex) {
			return failed(ex);
		}
	}

	public boolean succeeded() {
		return this.failure == null;
	}

	/** The value, or the failure thrown as if the request had run alone. */
	public T orThrow() {
		if (this.failure != null) {
			throw this.failure;
		}
		return this.value;
	}

	public <U> PerRequest<U> map(java.util.function.Function<T, U> mapping) {
		return succeeded() ? done(mapping.apply(this.value)) : failed(this.failure);
	}

}
