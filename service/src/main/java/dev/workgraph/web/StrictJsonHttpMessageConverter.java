package dev.workgraph.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

import dev.workgraph.problem.ProblemCode;
import dev.workgraph.problem.RequestRejected;
import dev.workgraph.problem.JsonProblems;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;

/**
 * Reads a request body in two steps: first the whole document as a JSON tree, then the
 * tree into the target type. Syntax and nesting limits are thus always judged before the
 * shape: a 10,000-deep array sent where an object is expected is a malformed request
 * (400), not a type mismatch, and trailing garbage after a valid prefix is caught even
 * when binding would have stopped early. Each step's failure is explained by
 * {@link JsonProblems}. A body must be strict UTF-8 unless its Content-Type names another
 * charset. Bodies are at most 10 MiB (see {@link RequestSizeLimitFilter}). Answers are
 * written whole, with their length (see {@link #writeInternal}).
 */
class StrictJsonHttpMessageConverter extends JacksonJsonHttpMessageConverter {

	StrictJsonHttpMessageConverter(JsonMapper mapper) {
		super(mapper);
	}

	/**
	 * Bytes are written as they are (the API document is served as ready-made JSON
	 * bytes), never as a base64 JSON string: left to the byte array converter after this
	 * one.
	 */
	@Override
	public boolean canWrite(ResolvableType type, Class<?> valueClass, MediaType mediaType) {
		return valueClass != byte[].class && super.canWrite(type, valueClass, mediaType);
	}

	/**
	 * The answer in one piece: serialized in memory first, so that it leaves with its
	 * Content-Length in one write. Written straight to the response, the converter's
	 * flush after the body committed it as chunked, and the chunked ending cost a second
	 * write (a system call, a TCP segment, a wake-up of the client) at the end of every
	 * request. Answers are small (pages are capped), so the copy costs less than that.
	 */
	@Override
	protected void writeInternal(Object value, ResolvableType type, HttpOutputMessage output, Map<String, Object> hints)
			throws IOException {
		ByteArrayOutputStream body = new ByteArrayOutputStream(1024);
		super.writeInternal(value, type, new HttpOutputMessage() {

			@Override
			public OutputStream getBody() {
				return body;
			}

			@Override
			public HttpHeaders getHeaders() {
				return output.getHeaders();
			}

		}, hints);
		output.getHeaders().setContentLength(body.size());
		body.writeTo(output.getBody());
	}

	@Override
	public Object read(ResolvableType type, HttpInputMessage input, Map<String, Object> hints)
			throws IOException, HttpMessageNotReadableException {
		byte[] body = body(input);
		Charset charset = declaredCharset(input.getHeaders());
		if (charset.equals(StandardCharsets.UTF_8) && !isStrictUtf8(body)) {
			throw new RequestRejected(ProblemCode.MALFORMED_REQUEST, "The request body is not valid UTF-8");
		}
		JsonNode document;
		try (JsonParser parser = charset.equals(StandardCharsets.UTF_8) ? this.defaultMapper.createParser(body)
				: this.defaultMapper.createParser(new String(body, charset))) {
			try {
				document = this.defaultMapper.readTree(parser);
			}
			catch (JacksonException ex) {
				throw JsonProblems.ofDocument(ex, parser);
			}
		}
		if (document == null || document.isMissingNode()) {
			throw new HttpMessageNotReadableException("Required request body is missing", input);
		}
		JsonProblems.requireFiniteNumbers(document);
		try {
			return this.defaultMapper.readerFor(getJavaType(type.getType(), null)).readValue(document);
		}
		catch (JacksonException ex) {
			throw JsonProblems.ofBinding(ex);
		}
	}

	/**
	 * The body in one array of its declared length when it has one (the size filter has
	 * already refused one over the cap): reading to the end instead allocates and copies
	 * buffers several times the size of a typical request.
	 */
	private static byte[] body(HttpInputMessage input) throws IOException {
		long declared = input.getHeaders().getContentLength();
		InputStream in = input.getBody();
		if (declared < 0 || declared > Integer.MAX_VALUE) {
			return in.readAllBytes();
		}
		byte[] body = in.readNBytes((int) declared);
		// HTTP/1.1 framing ends the body at the declared length; anything else is read
		// as it is, so that the document is judged whole.
		int next = in.read();
		if (next < 0) {
			return body;
		}
		byte[] rest = in.readAllBytes();
		byte[] whole = Arrays.copyOf(body, body.length + 1 + rest.length);
		whole[body.length] = (byte) next;
		System.arraycopy(rest, 0, whole, body.length + 1, rest.length);
		return whole;
	}

	/**
	 * Jackson's UTF-8 decoder accepts overlong forms ({@code C0 AF} reads as '/'), so a
	 * body could smuggle characters past any check done on its bytes; the JDK decoder
	 * refuses them, and encoded surrogates, as RFC 3629 requires. Decoded a buffer at a
	 * time: only the verdict is needed, not the text.
	 */
	static boolean isStrictUtf8(byte[] body) {
		if (isAscii(body)) {
			// ASCII is UTF-8, and nearly every request is ASCII: no decoder needed.
			return true;
		}
		CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
			.onMalformedInput(CodingErrorAction.REPORT)
			.onUnmappableCharacter(CodingErrorAction.REPORT);
		ByteBuffer in = ByteBuffer.wrap(body);
		CharBuffer out = CharBuffer.allocate(Math.min(8192, Math.max(16, body.length)));
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

	private static boolean isAscii(byte[] body) {
		for (byte b : body) {
			if (b < 0) {
				return false;
			}
		}
		return true;
	}

	/**
	 * JSON is UTF-8 (RFC 8259, section 8.1) unless the Content-Type names another
	 * charset, which is then honoured.
	 */
	private static Charset declaredCharset(HttpHeaders headers) {
		try {
			MediaType type = headers.getContentType();
			Charset charset = (type != null) ? type.getCharset() : null;
			return (charset != null) ? charset : StandardCharsets.UTF_8;
		}
		catch (IllegalArgumentException ex) {
			return StandardCharsets.UTF_8;
		}
	}

}
