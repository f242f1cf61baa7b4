package dev.workgraph.sql;

import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * PostgreSQL array literals: every text element is quoted, so commas, braces, blanks and
 * the word NULL stay text, and backslashes and quotes are escaped; only a Java null
 * becomes SQL NULL.
 */
class SqlArraysTests {

	@Test
	void textsAreQuotedAndEscaped() {
		assertThat(SqlArrays.texts(List.of("plain", "a,b", "{x}", " padded ", "say \"hi\"", "C:\\dir\\", "NULL", "")))
			.isEqualTo("{\"plain\",\"a,b\",\"{x}\",\" padded \",\"say \\\"hi\\\"\",\"C:\\\\dir\\\\\",\"NULL\",\"\"}");
	}

	@Test
	void aJavaNullIsTheOnlySqlNull() {
		assertThat(SqlArrays.texts(Arrays.asList("a", null, "null"))).isEqualTo("{\"a\",NULL,\"null\"}");
	}

	@Test
	void textsKeepEveryOtherCharacterAsItIs() {
		assertThat(SqlArrays.texts(List.of("ünïcödé 😀", "tab\tnew\nline")))
			.isEqualTo("{\"ünïcödé 😀\",\"tab\tnew\nline\"}");
	}

	@Test
	void emptyArrays() {
		assertThat(SqlArrays.texts(List.of())).isEqualTo("{}");
		assertThat(SqlArrays.uuids(List.of())).isEqualTo("{}");
		assertThat(SqlArrays.ints(new int[0])).isEqualTo("{}");
	}

	@Test
	void uuidsAndIntsNeedNoQuoting() {
		UUID first = UUID.fromString("01890a5d-ac96-7000-8000-000000000001");
		UUID second = UUID.fromString("01890a5d-ac96-7000-8000-000000000002");
		assertThat(SqlArrays.uuids(List.of(first, second))).isEqualTo("{" + first + "," + second + "}");
		assertThat(SqlArrays.ints(new int[] { 0, -7, Integer.MAX_VALUE })).isEqualTo("{0,-7,2147483647}");
	}

}
