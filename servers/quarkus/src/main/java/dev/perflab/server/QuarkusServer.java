package dev.perflab.server;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import sun.misc.Signal;

/**
 * perflab's Quarkus MCP server (servers/CONTRACT.md): Quarkus 3 + the Quarkiverse MCP server's
 * Streamable HTTP transport on Vert.x, with the tools, backends and canonical JSON of servers/java.
 */
@QuarkusMain
public class QuarkusServer implements QuarkusApplication {
  @Inject
  Config cfg;

  @Inject
  McpFront front;

  public static void main(String[] args) {
    GcPauses.install(); // from the first collection on, so /debug/runtime numbers pauses from 1
    Config cfg;
    try {
      cfg = Config.anyTransport(System.getenv());
    } catch (IllegalArgumentException e) {
      System.out.println("fatal: " + e.getMessage());
      System.exit(2);
      return;
    }
    // Read once by the JDK HTTP client when it loads: idle upstream connections live 90 s.
    System.setProperty("jdk.httpclient.keepalive.timeout", "90");
    System.setProperty("quarkus.http.port", Integer.toString(cfg.port()));
    // Quarkus' own exit handler: System.exit with run()'s code (1 and the reason on a failed start).
    Quarkus.run(QuarkusServer.class, args);
  }

  /** Runs once the HTTP server listens: our own signal handlers, then the start line. */
  @Override
  public int run(String... args) {
    // Quarkus' own SIGTERM path is the JVM's shutdown hook, which exits 143; the contract asks
    // for 0 after a graceful stop, and GET streams would hold the graceful stop to its timeout.
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), signal -> stop());
    }
    System.out.printf(
        "perflab-quarkus listening on http://127.0.0.1:%d (stateless=%b json_response=%b processors=%d jdk=%s)%n",
        cfg.port(), cfg.stateless(), cfg.jsonResponse(), Runtime.getRuntime().availableProcessors(), Runtime.version());
    System.out.flush();
    Quarkus.waitForExit();
    System.out.println("stopped");
    return 0;
  }

  private void stop() {
    System.out.println("shutting down: finishing in-flight requests");
    front.closeStreams();
    Quarkus.asyncExit(0);
  }
}
