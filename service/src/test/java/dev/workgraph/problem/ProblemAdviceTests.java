package dev.workgraph.problem;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import org.springframework.http.converter.HttpMessageNotWritableException;

import static org.assertj.core.api.Assertions.assertThat;

/** The catch-all answer: what is a failure of the service, and what is not. */
class ProblemAdviceTests {

	private final ProblemAdvice advice = new ProblemAdvice();

	@Test
	void aClientThatHungUpBeforeItsAnswerIsNotAFailureAndGetsNoAnswer() {
		HttpMessageNotWritableException hungUp = new HttpMessageNotWritableException(
				"Could not write JSON: ServletOutputStream failed to write: java.io.IOException: Broken pipe",
				new IOException("ServletOutputStream failed to write", new IOException("Broken pipe")));
		assertThat(this.advice.unexpected(hungUp)).isNull();
	}

	@Test
	void anythingElseUnexpectedIsA500Problem() {
		assertThat(this.advice.unexpected(new IllegalStateException("a bug")).getStatusCode().value()).isEqualTo(500);
	}

}
