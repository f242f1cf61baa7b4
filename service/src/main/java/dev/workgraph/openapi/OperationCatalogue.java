package dev.workgraph.openapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.workgraph.problem.ProblemCode;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/**
 * What the code cannot say about each operation, written for people: one YAML file per
 * group of operations under {@code src/main/resources/openapi/operations/} (see the
 * package description for how to add an entry). Read once at start-up; a file that does
 * not fit the shape below stops the start, naming the file.
 */
final class OperationCatalogue {

	static final String LOCATION = "classpath*:openapi/operations/*.yaml";

	private static final JsonMapper JSON = JsonMapper.builder()
		.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
		.build();

	private final List<Group> groups;

	private final Map<String, Entry> operations = new LinkedHashMap<>();

	private final Map<String, Group> groupOf = new LinkedHashMap<>();

	private OperationCatalogue(List<Group> groups) {
		this.groups = groups;
		for (Group group : groups) {
			group.operations().forEach((key, entry) -> {
				if (this.operations.put(key, entry) != null) {
					throw new IllegalStateException(key + " is documented twice in " + LOCATION);
				}
				this.groupOf.put(key, group);
			});
		}
	}

	/**
	 * Reads every group file, in file name order (the order Swagger UI shows them in).
	 */
	static OperationCatalogue load() {
		try {
			Resource[] files = new PathMatchingResourcePatternResolver().getResources(LOCATION);
			Arrays.sort(files, Comparator.comparing(Resource::getFilename));
			List<Group> groups = new ArrayList<>();
			for (Resource file : files) {
				groups.add(read(file));
			}
			return new OperationCatalogue(groups);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Group read(Resource file) throws IOException {
		try (InputStream in = file.getInputStream()) {
			Object yaml = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
			Group group = JSON.convertValue(yaml, Group.class);
			group.operations().values().forEach(Entry::problemCodes);
			return group;
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("The API document's " + file.getFilename() + " does not fit its shape ("
					+ "see the package description of dev.workgraph.openapi): " + ex.getMessage(), ex);
		}
	}

	List<Group> groups() {
		return this.groups;
	}

	/**
	 * Every documented operation, keyed {@code METHOD /path} as the document names it.
	 */
	Map<String, Entry> operations() {
		return this.operations;
	}

	Group groupOf(String operation) {
		return this.groupOf.get(operation);
	}

	/**
	 * What a parameter of the operation means: the operation's own words, else its
	 * group's; null when neither says.
	 */
	String parameter(String operation, String name) {
		Entry entry = this.operations.get(operation);
		if (entry == null) {
			return null;
		}
		String own = (entry.parameters() != null) ? entry.parameters().get(name) : null;
		if (own != null) {
			return own;
		}
		Group group = this.groupOf.get(operation);
		return (group.parameters() != null) ? group.parameters().get(name) : null;
	}

	/**
	 * One group of operations: a tag in the document, a section in Swagger UI.
	 *
	 * @param tag the group's name, for what users do ("Items", "Claims and leases")
	 * @param description what the group is for
	 * @param parameters descriptions of parameters its operations share, by name
	 * @param operations the group's operations, keyed {@code METHOD /path}
	 */
	record Group(String tag, String description, Map<String, String> parameters, Map<String, Entry> operations) {

		Group {
			require(tag, "tag");
			require(description, "description");
			operations = (operations != null) ? operations : Map.of();
			operations.forEach((key, entry) -> {
				if (!key.matches("(GET|POST|PUT|PATCH|DELETE) /\\S*")) {
					throw new IllegalArgumentException("'" + key + "' is not METHOD /path");
				}
			});
		}

	}

	/**
	 * One operation.
	 *
	 * @param operationId a verb-first camelCase id, unique in the document (generated
	 * clients name their methods after it)
	 * @param summary a few words, shown beside the path in Swagger UI
	 * @param description when to use it and what it does, in Markdown
	 * @param parameters descriptions of its path, query and header parameters, by name
	 * @param request an example request body (any YAML or JSON value)
	 * @param problems the problem codes particular to it; those that follow from its
	 * shape are added ({@link OperationProblems})
	 * @param responses its success statuses, when not a lone 200, with what each means
	 */
	record Entry(String operationId, String summary, String description, Map<String, String> parameters, Object request,
			List<String> problems, Map<Integer, String> responses) {

		Entry {
			require(operationId, "operationId");
			require(summary, "summary");
			require(description, "description");
			problems = (problems != null) ? problems : List.of();
		}

		List<ProblemCode> problemCodes() {
			return this.problems.stream().map((code) -> ProblemCode.valueOf(code.toUpperCase(Locale.ROOT))).toList();
		}

	}

	private static void require(String value, String name) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException("'" + name + "' is missing");
		}
	}

}
