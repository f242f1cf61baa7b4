package dev.workgraph.web;

import java.io.IOException;
import java.util.Map;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;

/**
 * Reads a request body in two steps: first the whole document as a JSON tree, then the
 * tree into the target type. Syntax and nesting limits are thus always judged before the
 * shape: a 10,000-deep array sent where an object is expected is a malformed request
 * (400, contract §5), not a type mismatch, and trailing garbage after a valid prefix is
 * caught even when binding would have stopped early. Bodies are at most 10 MiB (see
 * {@link RequestSizeLimitFilter}).
 */
class StrictJsonHttpMessageConverter extends JacksonJsonHttpMessageConverter {

	StrictJsonHttpMessageConverter(JsonMapper mapper) {
		super(mapper);
	}

	@Override
	public Object read(ResolvableType type, HttpInputMessage input, Map<String, Object> hints)
			throws IOException, HttpMessageNotReadableException {
		JsonNode document;
		try {
			document = this.defaultMapper.readTree(input.getBody());
		}
		catch (JacksonException ex) {
			throw new HttpMessageNotReadableException("Unreadable JSON", ex, input);
		}
		if (document == null || document.isMissingNode()) {
			throw new HttpMessageNotReadableException("Required request body is missing", input);
		}
		try {
			return this.defaultMapper.readerFor(getJavaType(type.getType(), null)).readValue(document);
		}
		catch (JacksonException ex) {
			throw new HttpMessageNotReadableException("JSON does not match the expected shape", ex, input);
		}
	}

}
