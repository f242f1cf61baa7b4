package dev.workgraph.console;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.workgraph.testing.Api;
import dev.workgraph.testing.LeaseTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The JSON API the console's pages call beyond the item and inbox endpoints: queue
 * backlogs, title search and dependents; and the console's own page and headers.
 */
class ConsoleApiTests extends LeaseTestSupport {

	@Test
	void queuesCountOpenItemsByStatusWithTheOldestReadyAge() {
		UUID firstReady = createItem("first ready", "queue", "mail");
		createItem("second ready", "queue", "mail");
		UUID leased = createItem("to lease", "queue", "mail", "priority", 10);
		createItem("blocked on the first", "queue", "mail", "dependsOn", List.of(firstReady));
		UUID done = createItem("done", "queue", "archive", "priority", 5);
		JsonNode claim = claimFrom("mail", "w1");
		assertThat(itemId(claim)).isEqualTo(leased);
		JsonNode finishing = claimFrom("archive", "w2");
		assertThat(itemId(finishing)).isEqualTo(done);
		assertOk(complete(finishing));
		createItem("only leased", "queue", "build");
		claimFrom("build", "w3");

		JsonNode queues = queues();
		assertThat(names(queues)).as("queues with open items, by name; archive has none left")
			.containsExactly("build", "mail");
		JsonNode mail = queues.get(1);
		assertThat(mail.path("ready").asLong()).isEqualTo(2);
		assertThat(mail.path("leased").asLong()).isEqualTo(1);
		assertThat(mail.path("blocked").asLong()).isEqualTo(1);
		Double age = mail.path("oldestReadyAgeSeconds").asDouble();
		assertThat(age).isGreaterThanOrEqualTo(0.0).isLessThan(60.0);
		String firstReadySince = item(firstReady).path("readySince").asString();
		assertThat(instant(mail.path("oldestReadySince"))).isEqualTo(instant(item(firstReady).path("readySince")))
			.as(firstReadySince);
		JsonNode build = queues.get(0);
		assertThat(build.path("ready").asLong()).isZero();
		assertThat(build.path("leased").asLong()).isEqualTo(1);
		assertThat(build.path("oldestReadySince").isNull()).as("nothing ready").isTrue();
		assertThat(build.path("oldestReadyAgeSeconds").isNull()).isTrue();
	}

	@Test
	void queuesMatchTheItemListsTheyLinkTo() {
		for (int i = 0; i < 7; i++) {
			createItem("r" + i, "queue", i % 2 == 0 ? "even" : "odd");
		}
		claimFrom("odd", "w");
		for (JsonNode queue : queues()) {
			for (String status : List.of("ready", "leased", "blocked")) {
				Api.Response listed = this.api
					.get("/items?limit=500&status=" + status + "&queue=" + queue.path("name").asString());
				assertThat((long) listed.body().path("items").size()).as("%s %s", queue, status)
					.isEqualTo(queue.path(status).asLong());
			}
		}
	}

	@Test
	void titleSearchMatchesAnyLetterCaseAndTakesWildcardsLiterally() {
		UUID upper = createItem("Rotate the TLS certificates");
		UUID lower = createItem("tls: renew the staging certificate");
		createItem("Unrelated work");
		UUID percent = createItem("Raise the quota to 100% now");
		UUID underscore = createItem("rename field user_id");
		createItem("rename field userXid");
		createItem("Raise the quota to 1000 now");

		assertThat(search("tls")).containsExactlyInAnyOrder(upper, lower);
		assertThat(search("  TLS  ")).as("spaces around are ignored").containsExactlyInAnyOrder(upper, lower);
		assertThat(search("100%")).as("%% is a character, not a wildcard").containsExactly(percent);
		assertThat(search("r_i")).as("_ is a character, not a wildcard").containsExactly(underscore);
		assertThat(search("nothing like this")).isEmpty();
		assertThat(ids(this.api.get("/items?q=certificate&status=ready").body().path("items")))
			.containsExactlyInAnyOrder(upper, lower);
		assertThat(ids(this.api.get("/items?q=certificate&status=blocked").body().path("items"))).isEmpty();
	}

	@Test
	void titleSearchPagesThroughEveryMatchOnce() {
		List<UUID> matching = new ArrayList<>();
		for (int i = 0; i < 23; i++) {
			matching.add(createItem("Needle " + i));
			createItem("Haystack " + i);
		}
		List<UUID> seen = new ArrayList<>();
		String cursor = null;
		do {
			JsonNode page = this.api.get("/items?q=needle&limit=5" + ((cursor != null) ? "&cursor=" + cursor : ""))
				.body();
			seen.addAll(ids(page.path("items")));
			cursor = page.path("nextCursor").isNull() ? null : page.path("nextCursor").asString();
		}
		while (cursor != null);
		assertThat(seen).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(matching);
	}

	/**
	 * The search index lives in a table of its own (titles never change), filled by a
	 * trigger on every insert: items made by the API, by a decomposition and by bulk SQL
	 * are all found, and nothing the lifecycle does touches it.
	 */
	@Test
	void titleSearchFindsItemsHoweverTheyWereCreated() {
		UUID byApi = createItem("sprocket made by the API");
		JsonNode claim = claim("planner");
		assertCreated(decompose(claim, List.of(child("a", "title", "sprocket made by a decomposition"))));
		UUID bySql = this.jdbc.sql("""
				insert into work_items (id, title, status, closed_at)
				values (gen_random_uuid(), 'sprocket made by SQL', 'cancelled', now())
				returning id
				""").query(UUID.class).single();
		List<UUID> found = search("sprocket");
		assertThat(found).hasSize(3).contains(byApi, bySql);
		assertThat(this.jdbc.sql("select count(*) from work_item_titles").query(Long.class).single())
			.isEqualTo(this.jdbc.sql("select count(*) from work_items").query(Long.class).single());
	}

	@Test
	void aTitleCannotBeRewrittenUnderTheSearchIndex() {
		UUID id = createItem("the first title");
		assertThatThrownBy(
				() -> this.jdbc.sql("update work_items set title = 'another' where id = :id").param("id", id).update())
			.hasMessageContaining("work_items.title is immutable");
		assertThat(search("first title")).containsExactly(id);
	}

	/** Every claim, completion and expiry rewrites the item row in all of its indexes. */
	@Test
	void noTitleIndexOnTheRowsTheLifecycleRewrites() {
		assertThat(this.jdbc
			.sql("select count(*) from pg_indexes where tablename = 'work_items' and indexdef ilike '%gin%'")
			.query(Long.class)
			.single()).isZero();
	}

	@Test
	void titleSearchNeedsThreeCharacters() {
		assertProblem(this.api.get("/items?q=ab"), 422, "validation_failed");
		assertProblem(this.api.get("/items?q=%20ab%20"), 422, "validation_failed");
		assertProblem(this.api.get("/items?q="), 422, "validation_failed");
		assertProblem(this.api.get("/items?q=" + "x".repeat(201)), 422, "validation_failed");
		assertProblem(this.api.get("/items?q=ab%00c"), 422, "validation_failed");
		assertOk(this.api.get("/items?q=abc"));
	}

	@Test
	void dependentsAreListedAPageAtATime() {
		UUID base = createItem("base");
		List<UUID> dependents = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			dependents.add(createItem("dependent " + i, "dependsOn", List.of(base)));
		}
		createItem("unrelated");
		List<UUID> seen = new ArrayList<>();
		String cursor = null;
		do {
			Api.Response page = this.api
				.get("/items/" + base + "/dependents?limit=5" + ((cursor != null) ? "&cursor=" + cursor : ""));
			assertOk(page);
			page.body().path("items").forEach((entry) -> {
				assertThat(entry.path("title").asString()).startsWith("dependent ");
				assertThat(entry.path("status").asString()).isEqualTo("blocked");
			});
			seen.addAll(ids(page.body().path("items")));
			cursor = page.body().path("nextCursor").isNull() ? null : page.body().path("nextCursor").asString();
		}
		while (cursor != null);
		assertThat(seen).containsExactlyElementsOf(dependents.stream().sorted().toList());
		JsonNode none = this.api.get("/items/" + dependents.getFirst() + "/dependents").body();
		assertThat(none.path("items").size()).isZero();
		assertThat(none.path("nextCursor").isNull()).isTrue();
		assertProblem(this.api.get("/items/" + UUID.randomUUID() + "/dependents"), 404, "not_found");
		assertProblem(this.api.get("/items/" + base + "/dependents?cursor=nonsense"), 422, "validation_failed");
	}

	@Test
	void theConsoleIsServedWithHeadersThatKeepHostileContentInert() throws Exception {
		for (String path : List.of("/console", "/console/", "/console/app.js", "/console/console.css")) {
			HttpResponse<String> response = get(path);
			assertThat(response.statusCode()).as(path).isEqualTo(200);
			assertThat(response.headers().firstValue("Content-Security-Policy")).as(path)
				.hasValue(ConsoleHeaders.CONTENT_SECURITY_POLICY);
			assertThat(ConsoleHeaders.CONTENT_SECURITY_POLICY).contains("script-src 'self'")
				.contains("frame-ancestors 'none'")
				.doesNotContain("unsafe-inline")
				.doesNotContain("unsafe-eval");
			assertThat(response.headers().firstValue("X-Content-Type-Options")).as(path).hasValue("nosniff");
			assertThat(response.headers().firstValue("Referrer-Policy")).as(path).hasValue("no-referrer");
			assertThat(response.headers().firstValue("X-Frame-Options")).as(path).hasValue("DENY");
			assertThat(response.headers().firstValue("Set-Cookie")).as("no session cookie").isEmpty();
		}
		HttpResponse<String> page = get("/console");
		assertThat(page.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
		assertThat(page.body()).contains("<script type=\"module\" src=\"/console/app.js\"></script>");
		assertThat(page.body()).as("no inline script or style")
			.doesNotContainPattern("<script(?![^>]*src=)")
			.doesNotContain("<style")
			.doesNotContain("style=");
		assertThat(get("/console/app.js").headers().firstValue("Content-Type").orElseThrow())
			.startsWith("text/javascript");
	}

	@Test
	void theConsoleNeverWritesMarkupFromData() throws Exception {
		// Every value reaches the page as text (docs/console.md, "Hostile content").
		for (String script : List.of("app.js", "api.js", "dom.js", "inbox.js", "items.js", "item.js", "graph.js",
				"queues.js", "answer.js", "stream.js")) {
			String source = get("/console/" + script).body();
			assertThat(source).as(script)
				.doesNotContain("innerHTML")
				.doesNotContain("outerHTML")
				.doesNotContain("insertAdjacentHTML")
				.doesNotContain("document.write")
				.doesNotContain("eval(")
				.doesNotContain("new Function");
		}
	}

	private JsonNode queues() {
		Api.Response queues = this.api.get("/queues");
		assertOk(queues);
		return queues.body().path("queues");
	}

	private static List<String> names(JsonNode queues) {
		List<String> names = new ArrayList<>();
		queues.forEach((queue) -> names.add(queue.path("name").asString()));
		return names;
	}

	private List<UUID> search(String text) {
		Api.Response found = this.api.get("/items?q=" + URLEncoder.encode(text, StandardCharsets.UTF_8));
		assertOk(found);
		return ids(found.body().path("items"));
	}

	private HttpResponse<String> get(String path) throws Exception {
		try (HttpClient client = HttpClient.newHttpClient()) {
			return client.send(HttpRequest.newBuilder(URI.create(this.api.base() + path)).build(),
					HttpResponse.BodyHandlers.ofString());
		}
	}

}
