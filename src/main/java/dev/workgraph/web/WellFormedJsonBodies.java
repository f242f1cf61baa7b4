package dev.workgraph.web;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.workgraph.support.InvalidRequest;
import dev.workgraph.support.ProblemCode;
import dev.workgraph.support.RequestRejected;
import tools.jackson.core.JsonParser;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.AbstractJacksonHttpMessageConverter;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Checks that a JSON request body is one well-formed JSON value before it is bound, so
 * that syntax is judged before types (contract §5): a body that is not JSON, holds
 * trailing data, or nests deeper than 100 levels is 400 {@code malformed_request} even
 * when its first token already has the wrong type for the endpoint (a 10,000-deep array
 * sent where an object is expected would otherwise be a 422 about the type). Bodies must
 * be strict UTF-8 (RFC 8259 §8.1) unless the Content-Type names another charset.
 *
 * <p>
 * JSON allows any {@code \\uXXXX} escape, but Jackson refuses an unpaired surrogate in a
 * property name as a parse error. The contract counts an unpaired surrogate in any
 * string, keys included, as a validation error, so that case is a 422 naming the object
 * that holds the key.
 *
 * <p>
 * Bodies are at most 10 MiB ({@link RequestSizeLimitFilter}), so reading one into memory
 * first is bounded, and a token scan is cheap next to binding.
 */
@ControllerAdvice
class WellFormedJsonBodies extends RequestBodyAdviceAdapter {

	private final JsonMapper mapper;

	WellFormedJsonBodies(JsonMapper mapper) {
		this.mapper = mapper;
	}

	@Override
	public boolean supports(MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) {
		return AbstractJacksonHttpMessageConverter.class.isAssignableFrom(converterType);
	}

	@Override
	public HttpInputMessage beforeBodyRead(HttpInputMessage input, MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) throws IOException {
		byte[] body = input.getBody().readAllBytes();
		Charset charset = declaredCharset(input.getHeaders());
		if (charset != null) {
			check(body, charset, input);
		}
		return new BufferedBody(input.getHeaders(), body);
	}

	private void check(byte[] body, Charset charset, HttpInputMessage input) {
		if (charset.equals(StandardCharsets.UTF_8) && !isStrictUtf8(body)) {
			throw new RequestRejected(ProblemCode.MALFORMED_REQUEST, "The request body is not valid UTF-8");
		}
		JsonParser parser = charset.equals(StandardCharsets.UTF_8) ? this.mapper.createParser(body)
				: this.mapper.createParser(new String(body, charset));
		try (parser) {
			if (parser.nextToken() == null) {
				return; // empty: the converter answers that the body is missing
			}
			parser.skipChildren();
			if (parser.nextToken() != null) {
				throw new RequestRejected(ProblemCode.MALFORMED_REQUEST,
						"The request body is not valid JSON: it continues after the first JSON value");
			}
		}
		catch (StreamReadException ex) {
			if (isUnpairedSurrogateInName(ex)) {
				throw new InvalidRequest(pathOfEnclosingObject(parser), "must not contain an unpaired surrogate");
			}
			throw new HttpMessageNotReadableException("Unreadable JSON", ex, input);
		}
	}

	/**
	 * Jackson's UTF-8 decoder accepts overlong forms ({@code C0 AF} reads as '/'), so a
	 * body could smuggle characters past any check done on its bytes; the JDK decoder
	 * refuses them, and encoded surrogates, as RFC 3629 requires.
	 */
	private static boolean isStrictUtf8(byte[] body) {
		CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
			.onMalformedInput(CodingErrorAction.REPORT)
			.onUnmappableCharacter(CodingErrorAction.REPORT);
		ByteBuffer in = ByteBuffer.wrap(body);
		// Decoded a buffer at a time: only the verdict is needed, not the text.
		CharBuffer out = CharBuffer.allocate(8192);
		while (true) {
			CoderResult result = decoder.decode(in, out, true);
			if (result.isError()) {
				return false;
			}
			if (result.isUnderflow()) {
				return !decoder.flush(out.clear()).isError();
			}
			out.clear();
		}
	}

	/**
	 * Jackson's wording for a bad {@code \\uXXXX} surrogate escape in a property name.
	 */
	private static boolean isUnpairedSurrogateInName(StreamReadException ex) {
		String message = ex.getOriginalMessage();
		return message != null && message.contains("surrogate") && message.contains("in property name");
	}

	/**
	 * Where the bad key is, as a field path: the innermost object is the one whose key
	 * failed, so its own current name (a previous key, if any) is left out.
	 */
	private static String pathOfEnclosingObject(JsonParser parser) {
		List<String> segments = new ArrayList<>();
		TokenStreamContext context = parser.streamReadContext();
		for (TokenStreamContext at = (context != null) ? context.getParent() : null; at != null; at = at.getParent()) {
			if (at.inArray()) {
				segments.addFirst("[" + at.getCurrentIndex() + "]");
			}
			else if (at.inObject() && at.currentName() != null) {
				segments.addFirst("." + at.currentName());
			}
		}
		String path = String.join("", segments);
		path = path.startsWith(".") ? path.substring(1) : path;
		return path.isEmpty() ? "body" : path;
	}

	/**
	 * The charset to scan with, or {@code null} to leave an unusual declaration to the
	 * converter.
	 */
	private static Charset declaredCharset(HttpHeaders headers) {
		try {
			MediaType type = headers.getContentType();
			Charset charset = (type != null) ? type.getCharset() : null;
			return (charset != null) ? charset : StandardCharsets.UTF_8;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private record BufferedBody(HttpHeaders headers, byte[] body) implements HttpInputMessage {

		@Override
		public InputStream getBody() {
			return new java.io.ByteArrayInputStream(this.body);
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

	}

}
