package dev.workgraph.client;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Every entry of a listing with keyset pagination, each page fetched as the stream
 * reaches it: the {@code nextCursor} of one page asks for the next, until a page has
 * none.
 */
final class Pages {

	private Pages() {
	}

	/**
	 * @param fetch the page at a cursor (null: the first)
	 * @param firstCursor where to start
	 */
	static <T> Stream<T> stream(Function<String, Page<T>> fetch, String firstCursor) {
		Iterator<T> entries = new Iterator<>() {

			private Iterator<T> page = List.<T>of().iterator();

			private String cursor = firstCursor;

			private boolean last;

			@Override
			public boolean hasNext() {
				while (!this.page.hasNext() && !this.last) {
					Page<T> next = fetch.apply(this.cursor);
					this.page = next.entries().iterator();
					this.cursor = next.nextCursor();
					this.last = (this.cursor == null);
				}
				return this.page.hasNext();
			}

			@Override
			public T next() {
				if (!hasNext()) {
					throw new NoSuchElementException();
				}
				return this.page.next();
			}

		};
		return StreamSupport.stream(Spliterators.spliteratorUnknownSize(entries, Spliterator.ORDERED), false);
	}

	/** One page: its entries, and the cursor of the next (null on the last). */
	record Page<T>(List<T> entries, String nextCursor) {
	}

}
