package dev.workgraph.console;

import java.time.Duration;
import java.util.UUID;

import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.context.SmartLifecycle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console on the change stream, in headless Chromium: the inbox and the item page
 * change as changes are committed, without polling, and the header says whether the
 * console is live or reconnecting; after a break nothing is missed.
 */
class ConsoleLiveBrowserTests extends LeaseTestSupport {

	private static Browser browser;

	@Autowired
	private ApplicationContext context;

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

	@BeforeEach
	void normalWindow() {
		browser.driver.manage().window().setSize(new Dimension(1280, 900));
	}

	@Test
	void aNewQuestionAppearsOnTheInboxWithinASecondWithoutPolling() {
		open("#/inbox");
		waitFor(By.id("inbox-empty"));
		waitFor(By.cssSelector("#live[data-state='live']"));
		assertThat(browser.driver.findElement(By.id("live")).getText()).isEqualTo("live");
		browser.driver.executeScript("""
				window.inboxReads = 0;
				const original = window.fetch;
				window.fetch = (path, options) => {
				    if (String(path).startsWith('/attention-requests')) window.inboxReads++;
				    return original(path, options);
				};
				""");
		pause(Duration.ofMillis(2500));
		assertThat(browser.driver.executeScript("return window.inboxReads")).as("no polling while nothing changes")
			.isEqualTo(0L);

		createItem("Translate the release notes", "queue", "live");
		JsonNode claim = claimFrom("live", "agent-5");
		long asked = System.nanoTime();
		UUID requestId = UUID
			.fromString(askForAttention(claim, "Into which languages?", true).body().path("id").asString());
		new WebDriverWait(browser.driver, Duration.ofSeconds(5)).pollingEvery(Duration.ofMillis(20))
			.until(ExpectedConditions.visibilityOfElementLocated(card(requestId)));
		long millis = Duration.ofNanos(System.nanoTime() - asked).toMillis();
		assertThat(millis).as("from the question's commit to its card").isLessThan(1000);
		assertThat(browser.driver.findElement(By.id("inbox-count")).getText()).isEqualTo("1");

		assertOk(resolve(requestId, "French and German"));
		new WebDriverWait(browser.driver, Duration.ofSeconds(2)).pollingEvery(Duration.ofMillis(20))
			.until(ExpectedConditions.numberOfElementsToBe(card(requestId), 0));
		assertThat(browser.driver.findElement(By.id("inbox-count")).getText()).isEmpty();
	}

	@Test
	void afterABreakTheConsoleSaysReconnectingAndMissesNothing() {
		open("#/inbox");
		waitFor(By.id("inbox-empty"));
		waitFor(By.cssSelector("#live[data-state='live']"));
		SmartLifecycle feed = this.context.getBean("changeFeed", SmartLifecycle.class);
		UUID requestId;
		try {
			// Every stream of this instance ends, and new ones end at once, until the
			// feed
			// is back: as when the service restarts behind a load balancer.
			feed.stop();
			waitFor(By.cssSelector("#live[data-state='reconnecting']"));
			assertThat(browser.driver.findElement(By.id("live")).getText()).startsWith("reconnecting");
			createItem("Renew the certificates", "queue", "live");
			JsonNode claim = claimFrom("live", "agent-6");
			requestId = UUID.fromString(askForAttention(claim, "Which domains?", true).body().path("id").asString());
		}
		finally {
			feed.start();
		}
		waitFor(card(requestId));
		waitFor(By.cssSelector("#live[data-state='live']"));
	}

	@Test
	void theItemPageRedrawsWhenItsItemChanges() {
		UUID item = createItem("Rebuild the search index", "queue", "live");
		open("#/items/" + item);
		WebElement status = waitFor(By.cssSelector("main .status"));
		assertThat(status.getText()).isEqualTo("ready");
		JsonNode claim = claimFrom("live", "agent-8");
		new WebDriverWait(browser.driver, Duration.ofSeconds(2)).pollingEvery(Duration.ofMillis(20))
			.until(ExpectedConditions.textToBe(By.cssSelector("main .status"), "leased"));
		assertOk(complete(claim));
		new WebDriverWait(browser.driver, Duration.ofSeconds(2)).pollingEvery(Duration.ofMillis(20))
			.until(ExpectedConditions.textToBe(By.cssSelector("main .status"), "completed"));
		assertThat(browser.driver.findElements(By.cssSelector("#leases tr[data-epoch]"))).hasSize(1);
	}

	private static By card(UUID requestId) {
		return By.cssSelector("#inbox article.request[data-request-id='" + requestId + "']");
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

	private static void pause(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
