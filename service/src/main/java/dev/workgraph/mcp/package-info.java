/**
 * The MCP server at {@code /mcp} (docs/mcp.md, docs/adr/0020-mcp-server.md): Model
 * Context Protocol tools for a model working as one worker. The MCP session holds the
 * lease it claimed, renews it while the session lives, and every tool call is made as the
 * HTTP call it stands for, with the session's own token, so it is validated, authorized
 * and fenced by the same code. Depends on no other feature.
 */
package dev.workgraph.mcp;
