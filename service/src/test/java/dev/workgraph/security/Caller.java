package dev.workgraph.security;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.workgraph.testing.Api;
import tools.jackson.databind.json.JsonMapper;

/**
 * Someone calling the service: every request carries the same {@code Authorization}
 * header, or none.
 */
record Caller(Api api, String authorization) {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	static Caller bearer(Api api, String token) {
		return new Caller(api, "Bearer " + token);
	}

	static Caller anonymous(Api api) {
		return new Caller(api, null);
	}

	Api.Response get(String path) {
		return send("GET", path, null);
	}

	Api.Response post(String path, Object body) {
		return send("POST", path, (body instanceof String text) ? text : JSON.writeValueAsString(body));
	}

	Api.Response delete(String path) {
		return send("DELETE", path, null);
	}

	Api.Response send(String method, String path, String json) {
		Map<String, String> headers = new LinkedHashMap<>();
		if (this.authorization != null) {
			headers.put("Authorization", this.authorization);
		}
		if (json != null) {
			headers.put("Content-Type", "application/json");
		}
		return this.api.raw(method, path, (json != null) ? json.getBytes(StandardCharsets.UTF_8) : null, headers);
	}

}
