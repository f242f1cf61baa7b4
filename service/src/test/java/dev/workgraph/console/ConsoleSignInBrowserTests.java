package dev.workgraph.console;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.ServiceTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Signing in to the console with security on: a wrong token is refused, a worker's token
 * may not use the console, an admin token opens it, and the token stays in the tab's
 * session storage only (no URL, no cookie, no local storage).
 */
@TestPropertySource(properties = { "workgraph.security.enabled=true",
		"workgraph.security.bootstrap-admin-token=" + ConsoleSignInBrowserTests.ADMIN_TOKEN })
class ConsoleSignInBrowserTests extends ServiceTest {

	/**
	 * The access tests' bootstrap token, so that they share one service (one Spring
	 * context, not one more to start).
	 */
	static final String ADMIN_TOKEN = "access-tests-bootstrap-admin-token";

	private static Browser browser;

	@BeforeAll
	static void startBrowser() {
		browser = Browser.start();
	}

	@AfterAll
	static void stopBrowser() {
		if (browser != null) {
			browser.close();
		}
	}

	@Test
	void aWrongTokenIsRefusedAndAnOperatorTokenOpensTheConsole() throws Exception {
		browser.driver.get(this.api.base() + "/console");
		WebElement token = waitFor(By.id("token"));
		assertThat(browser.driver.findElement(By.id("nav")).isDisplayed()).isFalse();

		token.sendKeys("not-a-token-anyone-issued");
		browser.driver.findElement(By.cssSelector("#sign-in button[type=submit]")).click();
		WebElement error = waitFor(By.id("sign-in-error"));
		assertThat(error.getText()).startsWith("Wrong token");
		assertThat(browser.driver.findElement(By.id("nav")).isDisplayed()).isFalse();
		browser.screenshot("sign-in");

		String worker = issueToken("worker");
		signIn(worker);
		new WebDriverWait(browser.driver, Duration.ofSeconds(10)).until(
				ExpectedConditions.textToBePresentInElementLocated(By.id("sign-in-error"), "may not use the console"));

		String operator = issueToken("operator");
		signIn(operator);
		waitFor(By.cssSelector("#nav"));
		waitFor(By.id("inbox-empty"));
		new WebDriverWait(browser.driver, Duration.ofSeconds(10)).until(ExpectedConditions
			.textToBePresentInElementLocated(By.id("session"), "signed in as console-operator (operator)"));
		assertThat(browser.driver.getCurrentUrl()).doesNotContain(operator);
		assertThat(browser.driver.executeScript("return document.cookie")).isEqualTo("");
		assertThat(browser.driver.executeScript("return JSON.stringify(localStorage)").toString())
			.doesNotContain(operator);
		assertThat(browser.driver.executeScript("return sessionStorage.getItem('workgraph.console.token')"))
			.isEqualTo(operator);

		// Signed in, an answer is recorded under the token's name.
		Api asWorker = this.api.as(worker);
		Api asOperator = this.api.as(operator);
		assertThat(asOperator.post("/items", Map.of("title", "Pick the release name")).status()).isEqualTo(201);
		JsonNode claim = asWorker.post("/claims", Map.of("queues", List.of("default"))).body();
		JsonNode asked = asWorker
			.post("/leases/" + claim.path("lease").path("id").asString() + "/attention-requests",
					Map.of("epoch", claim.path("lease").path("epoch").asLong(), "question", "Aurora or Borealis?"))
			.body();
		WebElement card = waitFor(By.cssSelector("article[data-request-id='" + asked.path("id").asString() + "']"));
		assertThat(card.findElements(By.name("resolvedBy"))).as("no name to type: the token's is used").isEmpty();
		card.findElement(By.name("resolution")).sendKeys("Aurora");
		card.findElement(By.cssSelector("button[type=submit]")).click();
		waitFor(By.cssSelector(".answered .status[data-status='ready']"));
		JsonNode resolved = asOperator.get("/attention-requests/" + asked.path("id").asString()).body();
		assertThat(resolved.path("resolvedBy").asString()).isEqualTo("console-operator");

		// A reload keeps the session; signing out forgets the token.
		browser.driver.navigate().refresh();
		waitFor(By.id("inbox-empty"));
		browser.driver.findElement(By.id("sign-out")).click();
		waitFor(By.id("token"));
		assertThat(browser.driver.executeScript("return sessionStorage.length")).isEqualTo(0L);
	}

	private void signIn(String value) {
		WebElement token = waitFor(By.id("token"));
		token.clear();
		token.sendKeys(value);
		browser.driver.findElement(By.cssSelector("#sign-in button[type=submit]")).click();
	}

	/** {@code POST /tokens} as the bootstrap admin; returns the new token. */
	private String issueToken(String role) throws Exception {
		Map<String, Object> body = role.equals("worker")
				? Map.of("name", "console-" + role, "role", role, "workerId", "agent-console")
				: Map.of("name", "console-" + role, "role", role);
		JsonMapper json = JsonMapper.builder().build();
		try (HttpClient client = HttpClient.newHttpClient()) {
			HttpResponse<String> created = client.send(HttpRequest.newBuilder(URI.create(this.api.base() + "/tokens"))
				.header("Authorization", "Bearer " + ADMIN_TOKEN)
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body)))
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
			JsonNode token = json.readTree(created.body());
			return token.path("token").asString();
		}
	}

	private WebElement waitFor(By locator) {
		return new WebDriverWait(browser.driver, Duration.ofSeconds(10))
			.until(ExpectedConditions.visibilityOfElementLocated(locator));
	}

}
