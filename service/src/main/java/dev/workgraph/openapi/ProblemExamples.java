package dev.workgraph.openapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.workgraph.problem.ProblemCode;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import org.springframework.core.io.ClassPathResource;

/**
 * An example answer for every problem code ({@code openapi/problems.yaml}): its
 * {@code detail} and the members particular to it, as the service writes them. The
 * members every problem has are added from the code itself.
 */
final class ProblemExamples {

	static final String LOCATION = "openapi/problems.yaml";

	private final Map<String, Map<String, Object>> examples;

	private ProblemExamples(Map<String, Map<String, Object>> examples) {
		this.examples = examples;
	}

	@SuppressWarnings("unchecked")
	static ProblemExamples load() {
		try (InputStream in = new ClassPathResource(LOCATION).getInputStream()) {
			Object yaml = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
			return new ProblemExamples((Map<String, Map<String, Object>>) yaml);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Whether the file has an example of the code. */
	boolean has(ProblemCode code) {
		Map<String, Object> example = this.examples.get(code.code());
		return example != null && example.get("detail") instanceof String;
	}

	/** The whole example body of a problem answered on a path. */
	Map<String, Object> of(ProblemCode code, String instance) {
		Map<String, Object> example = new LinkedHashMap<>();
		example.put("type", code.type().toString());
		example.put("title", code.title());
		example.put("status", code.status().value());
		example.put("instance", instance);
		example.put("code", code.code());
		example.putAll(this.examples.getOrDefault(code.code(), Map.of("detail", code.title())));
		return example;
	}

}
