/**
 * Tests of the MCP server, driven by the MCP Java SDK's own client and by the MCP
 * Inspector's command line.
 */
package dev.workgraph.mcp;
