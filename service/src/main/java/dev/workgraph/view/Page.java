package dev.workgraph.view;

import java.util.List;

import dev.workgraph.problem.InvalidRequest;

/** One page of a keyset-paginated list; {@code nextCursor} is null on the last page. */
public record Page<T>(List<T> entries, String nextCursor) {

	public static final int DEFAULT_SIZE = 50;

	public static final int MAX_SIZE = 500;

	/** The page size a {@code limit} parameter asks for: 1–500, 50 when absent. */
	public static int size(Integer limit) {
		if (limit == null) {
			return DEFAULT_SIZE;
		}
		if (limit < 1 || limit > MAX_SIZE) {
			throw new InvalidRequest("limit", "must be between 1 and " + MAX_SIZE);
		}
		return limit;
	}

}
