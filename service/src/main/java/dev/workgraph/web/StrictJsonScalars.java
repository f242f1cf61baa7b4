package dev.workgraph.web;

import java.util.UUID;

import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Jackson turns a JSON number or boolean into a string field by default
 * ({@code "workerId": 7} binds as {@code "7"}), which
 * {@code spring.jackson.mapper.allow-coercion-of-scalars=false} does not cover. A field
 * the API types as text must arrive as a JSON string: anything else is a 422, like every
 * other type mismatch.
 */
@Configuration(proxyBeanMethods = false)
class StrictJsonScalars {

	@Bean
	JsonMapperBuilderCustomizer textMustBeAJsonString() {
		return (builder) -> builder.withCoercionConfig(LogicalType.Textual,
				(config) -> config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
					.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
					.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
	}

	/**
	 * Jackson also reads an empty string as a null UUID, so {@code "parentId": ""} would
	 * create a root item and {@code "dependsOn": [""]} report a missing value: an empty
	 * id is a malformed id (422 naming the field; docs/http-api.md, "Ids in paths and
	 * bodies").
	 */
	@Bean
	JsonMapperBuilderCustomizer idMustNotBeEmpty() {
		return (builder) -> builder.withCoercionConfig(UUID.class,
				(config) -> config.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail));
	}

}
