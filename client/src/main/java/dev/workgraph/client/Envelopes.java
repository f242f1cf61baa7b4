package dev.workgraph.client;

import java.util.List;

/** The objects the service sends lists in; a list that is not there reads as empty. */
final class Envelopes {

	private Envelopes() {
	}

	/** {@code POST /claims/batch}. */
	record Claims(List<Claim> claims) {

		Claims {
			claims = (claims != null) ? List.copyOf(claims) : List.of();
		}

	}

	/** {@code POST /completions}. */
	record CompletionResults(List<CompletionResult> results) {

		CompletionResults {
			results = (results != null) ? List.copyOf(results) : List.of();
		}

	}

	/** {@code GET /tokens}. */
	record Tokens(List<Token> tokens) {

		Tokens {
			tokens = (tokens != null) ? List.copyOf(tokens) : List.of();
		}

	}

}
