package dev.workgraph.access;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class AccessPropertiesTests {

	@Test
	void accessControlIsOnUnlessTurnedOff() {
		assertThat(new AccessProperties(null, null).enabled()).isTrue();
		assertThat(new AccessProperties(false, null).enabled()).isFalse();
	}

	@Test
	void aBlankBootstrapTokenMeansNone() {
		assertThat(new AccessProperties(true, "  ").bootstrapAdminToken()).isNull();
	}

	@Test
	void aShortBootstrapTokenIsRefusedWithoutEchoingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> new AccessProperties(true, "letmein"))
			.withMessageContaining("at least 22 characters")
			.withMessageNotContaining("letmein");
		assertThat(new AccessProperties(true, "0123456789abcdefghijkl").bootstrapAdminToken()).hasSize(22);
	}

}
