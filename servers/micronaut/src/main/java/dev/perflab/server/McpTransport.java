package dev.perflab.server;

import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import io.modelcontextprotocol.spec.ProtocolVersions;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * The module's stateless transport and handler beans (its McpStatelessServerFactory), declaring
 * protocol 2025-11-25 beside the SDK 0.17's versions through the transport's own protocolVersions():
 * section 2 asks for both, and 2025-11-25 changes nothing this contract's messages use.
 */
@Factory
class McpTransport {
  static final List<String> VERSIONS = List.of(
      ProtocolVersions.MCP_2024_11_05, ProtocolVersions.MCP_2025_03_26, ProtocolVersions.MCP_2025_06_18, "2025-11-25");

  private volatile McpStatelessServerHandler server;

  @Singleton
  @Replaces(McpStatelessServerTransport.class)
  McpStatelessServerTransport transport() {
    return new McpStatelessServerTransport() {
      @Override
      public void setMcpHandler(McpStatelessServerHandler handler) {
        server = handler;
      }

      @Override
      public Mono<Void> closeGracefully() {
        return Mono.empty();
      }

      @Override
      public List<String> protocolVersions() {
        return VERSIONS;
      }
    };
  }

  /** What the module's controller calls: the SDK server, once it has registered itself. */
  @Singleton
  @Replaces(McpStatelessServerHandler.class)
  McpStatelessServerHandler handler() {
    return new McpStatelessServerHandler() {
      @Override
      public Mono<McpSchema.JSONRPCResponse> handleRequest(McpTransportContext context, McpSchema.JSONRPCRequest request) {
        return Objects.requireNonNull(server, "the MCP server is not started").handleRequest(context, request);
      }

      @Override
      public Mono<Void> handleNotification(McpTransportContext context, McpSchema.JSONRPCNotification notification) {
        return Objects.requireNonNull(server, "the MCP server is not started").handleNotification(context, notification);
      }
    };
  }
}
