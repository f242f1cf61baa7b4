package dev.workgraph.mcp;

import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The MCP server: the SDK's Streamable HTTP transport as a servlet at {@code /mcp}
 * (behind Spring Security like every other path), and the tools of {@link WorkTools}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(McpProperties.class)
@ConditionalOnBooleanProperty(name = "workgraph.mcp.enabled", matchIfMissing = true)
class McpServerConfiguration {

	static final String PATH = "/mcp";

	@Bean
	HttpServletStreamableServerTransportProvider mcpTransport(JsonMapper json) {
		return HttpServletStreamableServerTransportProvider.builder()
			.jsonMapper(new JacksonMcpJsonMapper(json))
			.mcpEndpoint(PATH)
			.build();
	}

	@Bean(destroyMethod = "close")
	McpSyncServer mcpServer(HttpServletStreamableServerTransportProvider transport, WorkTools tools, JsonMapper json) {
		return McpServer.sync(transport)
			.serverInfo("work-graph", "1")
			.jsonMapper(new JacksonMcpJsonMapper(json))
			.instructions("Work Graph hands out work items to workers like you. Call claim_work to take an item; "
					+ "while this session lasts the item is yours alone. Do the work, then complete_work with the "
					+ "result. Ask a human with ask_human when you need a decision; release_work gives an item "
					+ "back, decompose splits it. If a call says you no longer hold the item, stop working on it.")
			.capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
			// Tool calls run on the request's own thread, which waits for them anyway.
			.immediateExecution(true)
			.tools(tools.specifications())
			.build();
	}

	@Bean
	ServletRegistrationBean<McpEndpoint> mcpEndpoint(HttpServletStreamableServerTransportProvider transport,
			McpSessions sessions) {
		ServletRegistrationBean<McpEndpoint> registration = new ServletRegistrationBean<>(
				new McpEndpoint(transport, sessions), PATH);
		registration.setName("mcp");
		registration.setAsyncSupported(true);
		return registration;
	}

}
