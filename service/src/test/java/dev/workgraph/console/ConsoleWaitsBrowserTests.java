package dev.workgraph.console;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waiting on the world in headless Chromium: an escalated question stands out in the
 * inbox with the label it was escalated to (the card already on the page changes when the
 * escalation happens), and the item page lists the item's waits with the event that
 * matched each.
 */
class ConsoleWaitsBrowserTests extends LeaseTestSupport {

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
	void anEscalatedQuestionStandsOutInTheInboxWithItsLabel() {
		createItem("Deploy the hotfix");
		JsonNode claim = claim("agent-1");
		Api.Response asked = this.api.post("/leases/" + leaseId(claim) + "/attention-requests",
				Map.of("epoch", epoch(claim), "question", "May I deploy on a Friday?", "timeoutSeconds", 600,
						"onTimeout", Map.of("action", "escalate", "escalateTo", "release manager")));
		assertCreated(asked);
		UUID requestId = uuid(asked.body().path("id"));
		createItem("Calm question");
		askForAttention(claim("agent-2"), "Nothing urgent", true);
		open("#/inbox");
		By card = By.cssSelector("article.request[data-request-id='" + requestId + "']");
		WebElement before = waitFor(card);
		assertThat(before.getAttribute("class")).doesNotContain("escalated");
		assertThat(before.getText()).contains("deadline");

		// The deadline passes and the pass escalates it (as the reaper's timer
		// would); the change stream tells the inbox.
		this.jdbc.sql("update attention_requests set escalated_at = now() where id = ?").param(requestId).update();
		new WebDriverWait(browser.driver, Duration.ofSeconds(5))
			.until(ExpectedConditions.attributeContains(card, "class", "escalated"));
		WebElement escalated = browser.driver.findElement(card);
		assertThat(escalated.findElement(By.cssSelector(".escalation")).getText())
			.startsWith("Escalated to release manager");
		assertThat(browser.driver.findElements(By.cssSelector("article.request.escalated"))).hasSize(1);
		assertThat(escalated.getCssValue("border-left-width")).isEqualTo("6px");
		browser.screenshot("inbox-escalated");
	}

	@Test
	void theItemPageListsWaitsAndTheEventThatMatched() {
		UUID itemId = createItem("Merge when CI passes");
		JsonNode claim = claim("agent-1");
		assertCreated(this.api.post("/leases/" + leaseId(claim) + "/waits",
				Map.of("epoch", epoch(claim), "event", Map.of("name", "ci.finished", "key", "acme/api#42"))));
		open("#/items/" + itemId);
		textOnceItShows(By.id("waits"), "ci.finished", "acme/api#42", "open");
		textOnceItShows(By.id("blockers"), "1 open wait for an event");

		assertThat(this.api
			.post("/events",
					Map.of("name", "ci.finished", "key", "acme/api#42", "payload",
							Map.of("conclusion", "<b>success</b>")))
			.status()).isEqualTo(202);
		open("#/items/" + itemId);
		textOnceItShows(By.id("waits"), "matched");
		By matched = By.cssSelector("#waits details.matched-event");
		// The page may render again as the change stream reports the wait's end:
		// each step finds its element afresh.
		settled().until((driver) -> {
			driver.findElement(matched).findElement(By.tagName("summary")).click();
			return driver.findElement(matched).getAttribute("open") != null;
		});
		// As text, not as markup (the page holds no <b> element below).
		String payload = settled().until((driver) -> {
			String text = driver.findElement(matched).findElement(By.tagName("pre")).getAttribute("textContent");
			return text.contains("<b>success</b>") ? text : null;
		});
		assertThat(payload).contains("\"conclusion\"");
		assertThat(browser.driver.findElements(By.tagName("b"))).isEmpty();
		browser.screenshot("item-waits");
	}

	private void open(String route) {
		browser.driver.get("about:blank");
		browser.driver.get(this.api.base() + "/console" + route);
		waitFor(By.cssSelector("#nav:not([hidden])"));
	}

	private WebElement waitFor(By locator) {
		return new WebDriverWait(browser.driver, Duration.ofSeconds(10))
			.until(ExpectedConditions.visibilityOfElementLocated(locator));
	}

	/** A wait that looks again when the page replaced the element it had found. */
	private static WebDriverWait settled() {
		WebDriverWait wait = new WebDriverWait(browser.driver, Duration.ofSeconds(10));
		wait.ignoring(StaleElementReferenceException.class);
		return wait;
	}

	/** The element's text once it shows every one of {@code expected}. */
	private static String textOnceItShows(By locator, String... expected) {
		return settled().until((driver) -> {
			String text = driver.findElement(locator).getText();
			return Arrays.stream(expected).allMatch(text::contains) ? text : null;
		});
	}

}
