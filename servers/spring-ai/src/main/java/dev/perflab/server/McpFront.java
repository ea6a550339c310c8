package dev.perflab.server;

/**
 * The web filter in front of Spring AI's transport (servlet or reactive): it counts open MCP
 * sessions for /debug/runtime and ends GET streams at shutdown.
 */
interface McpFront {
  int sessionCount();

  void closeStreams();
}
