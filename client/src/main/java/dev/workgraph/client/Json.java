package dev.workgraph.client;

import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.cfg.EnumFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * How the client reads and writes JSON. Lenient where a newer service may say more
 * (unknown members and enum values are accepted), exact in what it sends (absent optional
 * fields are left out, because the service refuses members it does not know).
 */
final class Json {

	static final JsonMapper MAPPER = JsonMapper.builder()
		.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
		.enable(EnumFeature.READ_UNKNOWN_ENUM_VALUES_USING_DEFAULT_VALUE)
		.build();

	// The answers the typed client reads most

	static final JavaType ITEM = type(Item.class);

	static final JavaType LEASE = type(Lease.class);

	static final JavaType ENDED = type(EndedLease.class);

	static final JavaType CLAIM = type(Claim.class);

	static final JavaType ATTENTION_REQUEST = type(AttentionRequest.class);

	private Json() {
	}

	static JavaType type(Class<?> type) {
		return MAPPER.constructType(type);
	}

}
