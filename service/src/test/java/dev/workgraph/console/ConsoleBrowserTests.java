package dev.workgraph.console;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console end to end in headless Chromium against the real service (security off, as
 * in the other service tests): answering questions, the inbox's liveness, the item page's
 * drawing, the queues page, and hostile content.
 */
class ConsoleBrowserTests extends LeaseTestSupport {

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

	@BeforeEach
	void normalWindow() {
		browser.driver.manage().window().setSize(new Dimension(1280, 900));
	}

	@Test
	void anAnswerSentFromTheInboxMakesTheItemReadyAsTheApiDoes() {
		UUID item = createItem("Migrate the billing database", "queue", "ops", "priority", 5);
		JsonNode claim = claimFrom("ops", "agent-7");
		JsonNode asked = this.api.post("/leases/" + leaseId(claim) + "/attention-requests",
				Map.of("epoch", epoch(claim), "question",
						"The migration drops column legacy_id. Is anything still reading it?", "context",
						Map.of("table", "invoices", "rows", 1_200_000)))
			.body();
		UUID requestId = uuid(asked.path("id"));
		assertThat(status(item)).isEqualTo("blocked");
		createItem("Rotate the TLS certificates", "queue", "ops");

		open("#/inbox");
		WebElement card = waitFor(cardOf(requestId));
		assertThat(card.getText()).contains("Migrate the billing database")
			.contains("Is anything still reading it?")
			.contains("agent-7");
		browser.screenshot("inbox");

		answerOn(card, "Nothing reads it since release 2.3: drop it.", "ann");
		WebElement answered = waitFor(By.cssSelector(".answered[data-item-id='" + item + "'] .status"));
		assertThat(answered.getAttribute("data-status")).isEqualTo("ready");

		JsonNode resolved = this.api.get("/attention-requests/" + requestId).body();
		assertThat(resolved.path("status").asString()).isEqualTo("resolved");
		assertThat(resolved.path("resolution").asString()).isEqualTo("Nothing reads it since release 2.3: drop it.");
		assertThat(resolved.path("resolvedBy").asString()).isEqualTo("ann");
		assertThat(status(item)).isEqualTo("ready");
		// The worker that asked gets it back first (continuity), exactly as after an API
		// answer.
		assertThat(itemId(claimFrom("ops", "agent-7"))).isEqualTo(item);
	}

	@Test
	void anAnswerStaysOnTheInboxWhenARefreshComesBeforeItsConfirmation() {
		QuestionOnInbox asked = questionOnInbox("Archive the audit logs", "records", "agent-9", "Which year first?");
		UUID requestId = asked.requestId();
		WebElement card = asked.card();
		// After the answer is recorded the form reads the item for its confirmation.
		// Held back past the next poll, that read lets the poll see the question
		// closed first, as a slow network or a busy service can.
		replaceItemReads("new Promise((resolve) => setTimeout(resolve, 2500)).then(() => original(path, options))");

		answerOn(card, "2019, then onwards.", "ann");

		WebElement answered = waitFor(By.cssSelector(cardSelector(requestId) + " .answered[data-item-id] .status"));
		assertThat(answered.getAttribute("data-status")).isEqualTo("ready");
		sleepForPolling();
		assertThat(browser.driver.findElements(cardOf(requestId))).as("the answered card stays until the page is left")
			.hasSize(1);
	}

	@Test
	void anAnswerRecordedIsConfirmedEvenWhenTheItemCannotBeReadAfterwards() {
		QuestionOnInbox asked = questionOnInbox("Rotate the signing keys", "keys", "agent-4",
				"Which environment first?");
		UUID item = asked.item();
		UUID requestId = asked.requestId();
		WebElement card = asked.card();
		// The answer is recorded; only the confirmation's read of the item fails,
		// as a dropped connection would make it.
		replaceItemReads("Promise.reject(new TypeError('Failed to fetch'))");

		answerOn(card, "Staging, then production.", "ann");

		WebElement answered = waitFor(
				By.cssSelector(cardSelector(requestId) + " .answered[data-item-id='" + item + "']"));
		assertThat(answered.getText()).startsWith("Answered. Rotate the signing keys")
			.contains("could not be read")
			.doesNotContain("Not sent");
		assertThat(card.findElements(By.cssSelector("form.answer"))).as("no form invites a second answer").isEmpty();
		sleepForPolling();
		assertThat(browser.driver.findElements(cardOf(requestId))).as("the answered card stays until the page is left")
			.hasSize(1);
		assertThat(status(item)).as("the answer was recorded").isEqualTo("ready");
	}

	@Test
	void theInboxShowsQuestionsAskedAndAnsweredElsewhereWithinTwoSeconds() {
		open("#/inbox");
		waitFor(By.id("inbox-empty"));
		createItem("Summarise the incident", "queue", "writing");
		JsonNode claim = claimFrom("writing", "agent-2");
		UUID requestId = uuid(askForAttention(claim, "Which incident do you mean?", true).body().path("id"));
		By card = cardOf(requestId);
		new WebDriverWait(browser.driver, Duration.ofSeconds(2))
			.until(ExpectedConditions.visibilityOfElementLocated(card));
		assertThat(browser.driver.findElement(By.id("inbox-count")).getText()).isEqualTo("1");

		assertOk(resolve(requestId, "The one from Tuesday night"));
		new WebDriverWait(browser.driver, Duration.ofSeconds(2))
			.until(ExpectedConditions.numberOfElementsToBe(card, 0));
		assertThat(browser.driver.findElement(By.id("inbox-count")).getText()).isEmpty();
	}

	@Test
	void theItemPageDrawsDependenciesDependentsParentAndChildren() {
		UUID plan = createItem("Ship release 1.4", "priority", 10);
		UUID item = createItem("Deploy to production", "parentId", plan);
		UUID build = createItem("Build artifacts");
		UUID approve = createItem("Get change approval");
		addDependency(item, build);
		addDependency(item, approve);
		List<UUID> children = new ArrayList<>();
		for (String step : List.of("Drain traffic", "Swap binaries", "Restore traffic")) {
			children.add(createItem(step, "parentId", item));
		}
		// The order among the children: swap after draining, restore after swapping.
		addDependency(children.get(1), children.get(0));
		addDependency(children.get(2), children.get(1));
		UUID notes = createItem("Publish release notes", "dependsOn", List.of(item));
		UUID announce = createItem("Announce the release", "dependsOn", List.of(item));

		open("#/items/" + item);
		waitFor(By.cssSelector("svg#graph"));
		assertThat(browser.driver.findElement(By.id("item-title")).getText()).isEqualTo("Deploy to production");
		Map<UUID, String> roles = new LinkedHashMap<>();
		roles.put(item, "self");
		roles.put(plan, "parent");
		roles.put(build, "dependency");
		roles.put(approve, "dependency");
		children.forEach((child) -> roles.put(child, "child"));
		roles.put(notes, "dependent");
		roles.put(announce, "dependent");
		List<WebElement> nodes = browser.driver.findElements(By.cssSelector("svg#graph .graph-node"));
		assertThat(nodes).hasSize(roles.size());
		roles.forEach((id, role) -> {
			WebElement node = browser.driver.findElement(By.cssSelector("svg#graph [data-item-id='" + id + "']"));
			assertThat(node.getAttribute("data-role")).as("%s", id).isEqualTo(role);
			assertThat(node.getAttribute("data-status")).as("%s", id).isEqualTo(status(id));
			assertThat(node.getDomAttribute("href")).as("%s", id).isEqualTo("#/items/" + id);
			assertThat(node.getText()).as("%s", id).contains(item(id).path("title").asString()).contains(status(id));
		});
		assertThat(listed("dependencies")).containsExactlyInAnyOrder(build, approve);
		assertThat(listed("dependents")).containsExactlyInAnyOrder(notes, announce);
		assertThat(listed("children")).containsExactlyElementsOf(children);
		// A parent's page shows the dependencies between its children.
		assertThat(browser.driver.findElement(By.cssSelector("#children li[data-item-id='" + children.get(1) + "']"))
			.getText()).contains("waits for Drain traffic");
		assertThat(browser.driver.findElement(By.cssSelector("#children li[data-item-id='" + children.get(2) + "']"))
			.getText()).contains("waits for Swap binaries");
		assertThat(browser.driver.findElement(By.cssSelector("#children li[data-item-id='" + children.get(0) + "']"))
			.getText()).doesNotContain("waits for");
		assertThat(
				browser.driver.findElement(By.cssSelector("svg#graph [data-item-id='" + children.get(2) + "'] title"))
					.getAttribute("textContent"))
			.contains("waits for Swap binaries");
		assertThat(listed("parent")).containsExactly(plan);
		assertThat(browser.driver.findElement(By.id("blockers")).getText())
			.contains("2 unmet dependencies, 3 open children");
		browser.driver.manage().window().setSize(new Dimension(1280, 1400));
		browser.screenshot("item");

		browser.driver.findElement(By.cssSelector("svg#graph [data-item-id='" + children.get(1) + "']")).click();
		new WebDriverWait(browser.driver, Duration.ofSeconds(10))
			.until(ExpectedConditions.textToBe(By.id("item-title"), "Swap binaries"));
		assertThat(browser.driver.getCurrentUrl()).endsWith("#/items/" + children.get(1));
	}

	@Test
	void theItemPageShowsTheCheckpointAttemptsNextRunAndWhyTheServiceAsked() {
		UUID item = createItem("Crawl the partner catalogue", "retry",
				Map.of("maxAttempts", 2, "backoffSeconds", 600, "maxBackoffSeconds", 3600));
		JsonNode first = claim("crawler-1");
		assertThat(this.api
			.post("/leases/" + leaseId(first) + "/checkpoints",
					Map.of("epoch", epoch(first), "data", Map.of("page", 41, "cursor", "p41")))
			.status()).isEqualTo(201);
		assertThat(this.api
			.post("/leases/" + leaseId(first) + "/fail",
					Map.of("epoch", epoch(first), "error", Map.of("message", "partner answered 503")))
			.status()).isEqualTo(200);

		open("#/items/" + item);
		waitFor(By.id("checkpoint"));
		assertThat(browser.driver.findElement(By.id("checkpoint")).getText()).contains("#1", "crawler-1", "epoch 1",
				"\"page\": 41");
		String fields = browser.driver.findElement(By.cssSelector("dl.fields")).getText();
		assertThat(fields).contains("Attempts", "1 of 2", "Next run");
		assertThat(browser.driver.findElement(By.id("blockers")).getText()).contains("its next run at");
		browser.screenshot("item-backing-off");

		this.jdbc.sql("update work_items set not_before = now() where id = :id").param("id", item).update();
		this.reaper.promoteDue();
		JsonNode second = claim("crawler-2");
		assertThat(this.api
			.post("/leases/" + leaseId(second) + "/fail",
					Map.of("epoch", epoch(second), "error", Map.of("message", "partner answered 503 again")))
			.status()).isEqualTo(200);
		// The page redraws itself as changes arrive, and may redraw the button mid-click.
		clickWhenRedrawn(By.id("refresh"));
		By kind = By.cssSelector("#questions .badge.kind[data-kind='retries_exhausted']");
		waitFor(kind);
		assertThat(textOf(kind)).isEqualTo("retries exhausted");
		assertThat(textOf(By.id("questions"))).contains("asked by the service", "used up its 2 attempts");
		assertThat(textOf(By.cssSelector("dl.fields"))).contains("2 of 2").doesNotContain("Next run");
	}

	@Test
	void aNeighbourhoodOfFiftyItemsIsDrawnWithoutOverlaps() {
		UUID parent = createItem("Quarterly plan");
		UUID item = createItem("Data platform migration", "parentId", parent);
		List<UUID> dependencies = new ArrayList<>();
		for (int i = 0; i < 15; i++) {
			UUID dependency = createItem("Prerequisite number " + i + " with a fairly long descriptive title");
			addDependency(item, dependency);
			dependencies.add(dependency);
		}
		for (int i = 0; i < 20; i++) {
			createItem("Migration step " + i, "parentId", item);
		}
		for (int i = 0; i < 13; i++) {
			createItem("Consumer " + i + " switches over", "dependsOn", List.of(item));
		}
		open("#/items/" + item);
		waitFor(By.cssSelector("svg#graph"));
		assertThat(browser.driver.findElements(By.cssSelector("svg#graph .graph-node"))).hasSize(50);
		// Readable: no two node boxes overlap, and every title is drawn at a legible
		// size.
		Object overlaps = browser.driver.executeScript(
				"""
						const boxes = [...document.querySelectorAll('svg#graph .graph-node rect')].map((r) => r.getBBox());
						let overlaps = 0;
						for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
						  const a = boxes[i], b = boxes[j];
						  if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) overlaps++;
						}
						return overlaps;
						""");
		assertThat(((Number) overlaps).intValue()).isZero();
		Object smallest = browser.driver.executeScript("""
				return Math.min(...[...document.querySelectorAll('svg#graph .node-title')]
				  .map((t) => t.getBoundingClientRect().height));
				""");
		assertThat(((Number) smallest).doubleValue()).as("rendered title height in CSS pixels").isGreaterThan(10);
		browser.driver.manage().window().setSize(new Dimension(1400, 1600));
		browser.driver.executeScript("document.getElementById('graph').scrollIntoView()");
		browser.screenshot("graph-50");
	}

	@Test
	void theQueuesPageMatchesTheApi() {
		for (int i = 0; i < 5; i++) {
			createItem("Write chapter " + i, "queue", "writing");
		}
		UUID review = createItem("Review chapter 1", "queue", "review");
		createItem("Review chapter 2", "queue", "review", "dependsOn", List.of(review));
		createItem("Index the book", "queue", "indexing");
		claimFrom("writing", "agent-1");
		claimFrom("indexing", "agent-2");

		open("#/queues");
		waitFor(By.cssSelector("#queues table"));
		JsonNode queues = this.api.get("/queues").body().path("queues");
		List<String> expected = new ArrayList<>();
		queues.forEach((queue) -> expected.add(queue.path("name").asString() + " " + queue.path("ready").asString()
				+ " " + queue.path("leased").asString() + " " + queue.path("blocked").asString()));
		assertThat(expected).hasSize(3);
		// The page redraws itself every 2 s: read all rows in one go.
		new WebDriverWait(browser.driver, Duration.ofSeconds(10))
			.until((driver) -> expected.equals(browser.driver.executeScript(
					"""
							return [...document.querySelectorAll('#queues tbody tr')].map((row) => [row.dataset.queue,
							  ...['ready', 'leased', 'blocked'].map((s) => row.querySelector('td.' + s).textContent)].join(' '));
							""")));
		browser.screenshot("queues");
		new WebDriverWait(browser.driver, Duration.ofSeconds(10)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> {
				driver.findElement(By.cssSelector("tr[data-queue='writing'] td.ready a")).click();
				return true;
			});
		waitFor(By.cssSelector("#items table"));
		assertThat(browser.driver.findElements(By.cssSelector("#items tbody tr"))).hasSize(4);
	}

	@Test
	void theQueuesPagePausesResumesAndCapsAQueue() {
		createItem("Write chapter 1", "queue", "writing");
		open("#/queues");
		waitFor(By.cssSelector("tr[data-queue='writing'] button.pause"));
		clickWhenRedrawn(By.cssSelector("tr[data-queue='writing'] button.pause"));
		waitForQueue("writing", (queue) -> queue.path("paused").asBoolean());
		new WebDriverWait(browser.driver, Duration.ofSeconds(10)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> driver.findElement(By.cssSelector("tr[data-queue='writing'] td.state"))
				.getText()
				.startsWith("paused"));
		new WebDriverWait(browser.driver, Duration.ofSeconds(10)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> {
				var cap = driver.findElement(By.cssSelector("tr[data-queue='writing'] input[name='maxActiveLeases']"));
				cap.clear();
				cap.sendKeys("3");
				driver.findElement(By.cssSelector("tr[data-queue='writing'] form.cap button")).click();
				return true;
			});
		waitForQueue("writing", (queue) -> queue.path("maxActiveLeases").asInt() == 3);
		clickWhenRedrawn(By.cssSelector("tr[data-queue='writing'] button.pause"));
		waitForQueue("writing", (queue) -> !queue.path("paused").asBoolean());
		assertThat(this.api.get("/queues/writing").body().path("maxActiveLeases").asInt()).isEqualTo(3);
	}

	private void clickWhenRedrawn(By button) {
		new WebDriverWait(browser.driver, Duration.ofSeconds(10)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> {
				driver.findElement(button).click();
				return true;
			});
	}

	/** The element's text, read again if a redraw replaced the element mid-read. */
	private static String textOf(By locator) {
		return new WebDriverWait(browser.driver, Duration.ofSeconds(10)).ignoring(StaleElementReferenceException.class)
			.until((driver) -> driver.findElement(locator).getText());
	}

	private void waitForQueue(String name, java.util.function.Predicate<JsonNode> condition) {
		new WebDriverWait(browser.driver, Duration.ofSeconds(10))
			.until((driver) -> condition.test(this.api.get("/queues/" + name).body()));
	}

	@Test
	void itemsAreFilteredByStatusQueueAndTextInTitles() {
		createItem("Rotate the TLS certificates", "queue", "ops");
		createItem("Renew tls certificate for staging", "queue", "ops");
		createItem("Update the changelog", "queue", "docs");
		open("#/items");
		waitFor(By.cssSelector("#items table"));
		assertThat(browser.driver.findElements(By.cssSelector("#items tbody tr"))).hasSize(3);
		// The created date and time stay on one line.
		assertThat(browser.driver.executeScript("""
				return [...document.querySelectorAll('#items td.when')].map((cell) => {
					const text = document.createRange();
					text.selectNodeContents(cell);
					return text.getClientRects().length;
				});""")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST).containsOnly(1L);
		browser.driver.findElement(By.name("q")).sendKeys("TLS");
		browser.driver.findElement(By.cssSelector("#item-filters button")).click();
		new WebDriverWait(browser.driver, Duration.ofSeconds(10))
			.until((driver) -> driver.findElements(By.cssSelector("#items tbody tr")).size() == 2);
		assertThat(browser.driver.getCurrentUrl()).endsWith("#/items?q=TLS");
		browser.screenshot("items");
	}

	@Test
	void hostileTitlesQuestionsAndMetadataRenderAsHarmlessText() {
		String script = "<script>window.__pwned = 'script'</script>";
		String image = "<img src=x onerror=\"window.__pwned = 'img'\">";
		String link = "javascript:window.__pwned='link'";
		String svg = "<svg onload=\"window.__pwned='svg'\"></svg>";
		String longWord = "A".repeat(480);
		UUID parent = createItem(script + " parent", "metadata", Map.of("href", link, "html", image));
		UUID item = createItem(image + " " + link, "parentId", parent, "metadata", Map.of("url", link, "note", svg),
				"description", script + "\n" + "long line ".repeat(5000));
		createItem(longWord, "dependsOn", List.of(item));
		createItem(svg + " child", "parentId", item);
		JsonNode claim = claim(Map.of("workerId", "<b>agent</b>", "queues", List.of("default")));
		UUID claimed = itemId(claim);
		this.api.post("/leases/" + leaseId(claim) + "/attention-requests",
				Map.of("epoch", epoch(claim), "question", script + image + link + " " + "x".repeat(19_000), "context",
						Map.of("<img src=x onerror=alert(1)>", link)));

		for (String page : List.of("#/inbox", "#/items", "#/items/" + item, "#/items/" + parent,
				"#/items/" + claimed)) {
			open(page);
			waitFor(By.cssSelector("main h1"));
			sleepForPolling();
			assertThat(browser.driver.executeScript("return window.__pwned === undefined")).as(page).isEqualTo(true);
			assertThat(browser.driver.findElements(By.cssSelector("main img, main script, main iframe, main object")))
				.as(page)
				.isEmpty();
			assertThat(browser.driver.findElements(By.cssSelector("main svg:not(#graph)"))).as(page).isEmpty();
			List<?> hrefs = (List<?>) browser.driver
				.executeScript("return [...document.querySelectorAll('a')].map((a) => a.getAttribute('href'))");
			assertThat(hrefs).as(page).allSatisfy((href) -> assertThat(String.valueOf(href)).startsWith("#/"));
			Object overflow = browser.driver
				.executeScript("return document.documentElement.scrollWidth - document.documentElement.clientWidth");
			assertThat(((Number) overflow).intValue()).as("%s is no wider than the window", page)
				.isLessThanOrEqualTo(0);
		}
		open("#/items/" + item);
		waitFor(By.id("item-title"));
		assertThat(browser.driver.findElement(By.id("item-title")).getText()).isEqualTo(image + " " + link);
		assertThat(browser.driver.findElement(By.id("metadata")).getText()).contains(link)
			.contains(svg.replace("\"", "\\\""));
		open("#/inbox");
		WebElement question = waitFor(By.cssSelector("article.request .question"));
		assertThat(question.getText()).startsWith(script + image + link);
		browser.screenshot("hostile");
	}

	private static String cardSelector(UUID requestId) {
		return "article[data-request-id='" + requestId + "']";
	}

	private static By cardOf(UUID requestId) {
		return By.cssSelector(cardSelector(requestId));
	}

	/**
	 * A worker's blocking question about a new item of {@code queue}, open as a card on
	 * the inbox.
	 */
	private QuestionOnInbox questionOnInbox(String title, String queue, String workerId, String question) {
		UUID item = createItem(title, "queue", queue);
		JsonNode claim = claimFrom(queue, workerId);
		UUID requestId = uuid(askForAttention(claim, question, true).body().path("id"));
		open("#/inbox");
		return new QuestionOnInbox(item, requestId, waitFor(cardOf(requestId)));
	}

	private record QuestionOnInbox(UUID item, UUID requestId, WebElement card) {
	}

	/** Answers on an open question's card as an operator does, with security off. */
	private static void answerOn(WebElement card, String resolution, String resolvedBy) {
		card.findElement(By.name("resolution")).sendKeys(resolution);
		WebElement name = card.findElement(By.name("resolvedBy"));
		name.clear();
		name.sendKeys(resolvedBy);
		card.findElement(By.cssSelector("button[type=submit]")).click();
	}

	/**
	 * Makes the page's reads of {@code /items/…} answer with the given expression (of
	 * {@code original}, {@code path} and {@code options}) instead; other requests go
	 * through as before. It lasts until the next {@link #open}.
	 */
	private static void replaceItemReads(String expression) {
		browser.driver.executeScript("""
				const original = window.fetch;
				window.fetch = (path, options) => String(path).startsWith('/items/')
				    ? %s
				    : original(path, options);
				""".formatted(expression));
	}

	private void open(String route) {
		// A fresh document each time: a route differs from another only in its
		// fragment, and the same document would keep what a test patched into it.
		browser.driver.get("about:blank");
		browser.driver.get(this.api.base() + "/console" + route);
		waitFor(By.cssSelector("#nav:not([hidden])"));
	}

	private WebElement waitFor(By locator) {
		return new WebDriverWait(browser.driver, Duration.ofSeconds(10))
			.until(ExpectedConditions.visibilityOfElementLocated(locator));
	}

	private List<UUID> listed(String section) {
		List<UUID> ids = new ArrayList<>();
		for (WebElement entry : browser.driver.findElements(By.cssSelector("#" + section + " [data-item-id]"))) {
			ids.add(UUID.fromString(entry.getAttribute("data-item-id")));
		}
		return ids;
	}

	private void addDependency(UUID item, UUID dependsOn) {
		Api.Response added = this.api.post("/items/" + item + "/dependencies", Map.of("dependsOn", dependsOn));
		assertThat(added.status()).as(added.toString()).isEqualTo(201);
	}

	/**
	 * Lets the inbox read once more (it does after each change), so that what it draws is
	 * on the page.
	 */
	private static void sleepForPolling() {
		try {
			Thread.sleep(1200);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
