package dev.workgraph.client.problem;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.MissingNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An RFC 9457 problem as the service sends it: the standard members, the stable
 * machine-readable {@code code} to branch on, and every other member (the ids involved,
 * {@code errors}, {@code cycle}, ...) in {@link #properties()}.
 *
 * @param type a URI naming the kind of problem, {@code urn:workgraph:problem:<code>}
 * @param title a fixed summary of the kind of problem, for humans
 * @param status the HTTP status
 * @param detail what went wrong this time, for humans (never branch on it)
 * @param instance the request path the problem is about
 * @param code the stable code, e.g. {@code lease_expired}
 * @param properties the other members, by name
 */
public record Problem(String type, String title, int status, String detail, String instance, String code,
		Map<String, JsonNode> properties) {

	private static final Set<String> STANDARD = Set.of("type", "title", "status", "detail", "instance", "code");

	public Problem {
		properties = (properties != null) ? Collections.unmodifiableMap(new LinkedHashMap<>(properties)) : Map.of();
	}

	/**
	 * A problem made up by the client for an answer that carried none (e.g. a proxy's
	 * 502).
	 */
	public static Problem synthesized(int status, String code, String detail) {
		return new Problem("urn:workgraph:problem:" + code, null, status, detail, null, code, Map.of());
	}

	/** The problem in a JSON object; members of the wrong type are ignored. */
	@JsonCreator(mode = JsonCreator.Mode.DELEGATING)
	public static Problem fromJson(ObjectNode json) {
		Map<String, JsonNode> properties = new LinkedHashMap<>();
		json.properties().forEach((entry) -> {
			if (!STANDARD.contains(entry.getKey())) {
				properties.put(entry.getKey(), entry.getValue());
			}
		});
		return new Problem(text(json, "type"), text(json, "title"), json.path("status").asInt(0), text(json, "detail"),
				text(json, "instance"), text(json, "code"), properties);
	}

	@JsonValue
	public ObjectNode toJson() {
		ObjectNode json = JsonNodeFactory.instance.objectNode();
		putIfPresent(json, "type", this.type);
		putIfPresent(json, "title", this.title);
		json.put("status", this.status);
		putIfPresent(json, "detail", this.detail);
		putIfPresent(json, "instance", this.instance);
		putIfPresent(json, "code", this.code);
		this.properties.forEach(json::set);
		return json;
	}

	/** A member other than the standard ones, or a missing node. */
	public JsonNode property(String name) {
		JsonNode value = this.properties.get(name);
		return (value != null) ? value : MissingNode.getInstance();
	}

	/** The entries of a member that is an array, each read by {@code entry}. */
	<T> List<T> list(String name, Function<JsonNode, T> entry) {
		List<T> entries = new ArrayList<>();
		for (JsonNode member : property(name)) {
			entries.add(entry.apply(member));
		}
		return List.copyOf(entries);
	}

	private static String text(ObjectNode json, String name) {
		JsonNode value = json.get(name);
		return (value != null && value.isString()) ? value.asString() : null;
	}

	private static void putIfPresent(ObjectNode json, String name, String value) {
		if (value != null) {
			json.put(name, value);
		}
	}

}
