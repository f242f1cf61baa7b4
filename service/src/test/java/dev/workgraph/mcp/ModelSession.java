package dev.workgraph.mcp;

import java.time.Duration;
import java.util.Map;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A model's side of an MCP session: the SDK's client over Streamable HTTP with a bearer
 * token, and tool calls answered as JSON (or as the error text a model would read).
 */
final class ModelSession implements AutoCloseable {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final McpSyncClient client;

	ModelSession(int port, String token) {
		HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
			.builder("http://127.0.0.1:" + port)
			.endpoint("/mcp")
			.httpRequestCustomizer(
					(request, method, uri, body, context) -> request.header("Authorization", "Bearer " + token))
			.build();
		this.client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(90)).build();
		this.client.initialize();
	}

	McpSyncClient client() {
		return this.client;
	}

	McpSchema.CallToolResult call(String tool, Map<String, Object> arguments) {
		return this.client.callTool(new McpSchema.CallToolRequest(tool, arguments));
	}

	/** Calls a tool that must succeed, and answers its JSON. */
	JsonNode ok(String tool, Map<String, Object> arguments) {
		McpSchema.CallToolResult result = call(tool, arguments);
		assertThat(result.isError()).as(tool + " answered an error: " + text(result)).isNotEqualTo(Boolean.TRUE);
		String text = text(result);
		assertThat(text).as("what the model sees never names a lease or an epoch")
			.doesNotContain("\"lease\"")
			.doesNotContain("\"leaseId\"")
			.doesNotContain("\"epoch\"");
		return JSON.readTree(text);
	}

	/** Calls a tool that must fail, and answers the error text the model reads. */
	String error(String tool, Map<String, Object> arguments) {
		McpSchema.CallToolResult result = call(tool, arguments);
		assertThat(result.isError()).as(tool + " answered no error: " + text(result)).isTrue();
		return text(result);
	}

	static String text(McpSchema.CallToolResult result) {
		return ((McpSchema.TextContent) result.content().getFirst()).text();
	}

	@Override
	public void close() {
		this.client.closeGracefully();
	}

}
