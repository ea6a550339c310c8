package dev.perflab.server;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;

/** The Quarkiverse transport with this server's tools and McpFront, started by Quarkus' test runner. */
@QuarkusTest
class QuarkusEndpointTest extends McpHttpContract {
  @TestHTTPResource("/")
  URL root;

  @Override
  int port() {
    return root.getPort();
  }

  @Override
  String serverName() {
    return "perflab-quarkus";
  }
}
