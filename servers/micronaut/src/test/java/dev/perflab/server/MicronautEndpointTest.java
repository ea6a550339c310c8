package dev.perflab.server;

import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Micronaut MCP's controller with this server's tools, McpFilter and sessions, on a free port. */
class MicronautEndpointTest extends McpHttpContract {
  static EmbeddedServer server;

  @BeforeAll
  static void start() {
    server = ApplicationContext.run(EmbeddedServer.class, Map.of("micronaut.server.port", -1));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Override
  int port() {
    return server.getPort();
  }

  @Override
  String serverName() {
    return "perflab-micronaut";
  }
}
