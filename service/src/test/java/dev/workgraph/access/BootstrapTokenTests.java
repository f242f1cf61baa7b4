package dev.workgraph.access;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.workgraph.sql.Transactions;
import dev.workgraph.testing.Api;
import dev.workgraph.testing.Concurrently;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.DefaultApplicationArguments;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service with access control on and no token at all creates one admin token at
 * start-up and prints it once, on its own line; instances starting together create one
 * between them.
 */
@ExtendWith(OutputCaptureExtension.class)
class BootstrapTokenTests extends SecuredServiceTest {

	private static final Pattern PRINTED = Pattern.compile("Admin token: (wg_[A-Za-z0-9_-]{43})$", Pattern.MULTILINE);

	@Autowired
	Tokens tokens;

	@Autowired
	Transactions transactions;

	@Test
	void withNoTokenAtAllOneAdminTokenIsCreatedAndPrintedOnce(CapturedOutput output) {
		this.jdbc.sql("delete from access_tokens").update();
		// Eight instances starting at once.
		Concurrently.run(8, (i) -> {
			new BootstrapToken(new AccessProperties(true, null), this.tokens, this.transactions)
				.run(new DefaultApplicationArguments());
			return null;
		});
		assertThat(count("select count(*) from access_tokens where name = 'bootstrap' and role = 'admin'"))
			.isEqualTo(1);
		assertThat(count("select count(*) from access_tokens")).isEqualTo(1);
		Matcher printed = PRINTED.matcher(output.getAll());
		assertThat(printed.find()).as(output.getAll()).isTrue();
		String token = printed.group(1);
		assertThat(printed.find()).as("printed once").isFalse();
		assertThat(output.getAll().lines().filter((line) -> line.contains(token)).toList()).hasSize(1)
			.allSatisfy((line) -> assertThat(line).contains("Authorization: Bearer"));

		assertThat(this.api.as(token).get("/tokens").status()).isEqualTo(200);
		// A later start finds a token and creates none.
		new BootstrapToken(new AccessProperties(true, null), this.tokens, this.transactions)
			.run(new DefaultApplicationArguments());
		assertThat(count("select count(*) from access_tokens")).isEqualTo(1);
		assertThat(PRINTED.matcher(output.getAll()).results().count()).isEqualTo(1);
	}

	/**
	 * A later start cannot show the token again, so it says how an operator who lost it
	 * gets back in; and that way works: the configured token is an admin while tokens
	 * exist, makes a new admin token and revokes the lost one.
	 */
	@Test
	void aLaterStartSaysHowToReplaceALostAdminTokenAndThatWayWorks(CapturedOutput output) {
		this.jdbc.sql("delete from access_tokens").update();
		new BootstrapToken(new AccessProperties(true, null), this.tokens, this.transactions)
			.run(new DefaultApplicationArguments());
		String lost = PRINTED.matcher(output.getAll())
			.results()
			.reduce((first, second) -> second)
			.orElseThrow()
			.group(1);

		new BootstrapToken(new AccessProperties(true, null), this.tokens, this.transactions)
			.run(new DefaultApplicationArguments());
		assertThat(output.getAll().lines().filter((line) -> line.contains("tokens exist")).toList()).last()
			.asString()
			.contains("WORKGRAPH_SECURITY_BOOTSTRAP_ADMIN_TOKEN", "at least 22 characters",
					"admin token named bootstrap", "POST /tokens");

		// This context runs as that restart would: with a bootstrap token configured.
		tools.jackson.databind.JsonNode replacement = token("replacement admin", "admin", null);
		String lostId = this.admin.get("/tokens")
			.body()
			.path("tokens")
			.valueStream()
			.filter((listed) -> listed.path("name").asString().equals(TokenIntrospector.BOOTSTRAP_NAME))
			.findFirst()
			.orElseThrow()
			.path("id")
			.asString();
		assertThat(this.api.as(replacement.path("token").asString()).delete("/tokens/" + lostId).status())
			.isEqualTo(204);
		assertThat(this.api.as(lost).get("/tokens").status()).as("the lost token, revoked").isEqualTo(401);
		assertThat(this.api.as(replacement.path("token").asString()).get("/tokens").status()).isEqualTo(200);
	}

	@Test
	void aConfiguredBootstrapTokenIsAnAdminNamedBootstrapAndCreatesNothing(CapturedOutput output) {
		this.jdbc.sql("delete from access_tokens").update();
		new BootstrapToken(new AccessProperties(true, "configured-bootstrap-secret-of-32-chars"), this.tokens,
				this.transactions)
			.run(new DefaultApplicationArguments());
		assertThat(count("select count(*) from access_tokens")).isZero();
		assertThat(output.getAll()).doesNotContain("configured-bootstrap-secret-of-32-chars");
		assertThat(this.admin.post("/items", java.util.Map.of("title", "by bootstrap"))
			.body()
			.path("createdBy")
			.asString()).isEqualTo("bootstrap");
		assertThat(List.of(this.admin.get("/tokens").status())).containsExactly(200);
	}

}
