package dev.perflab.server;

/** perflab's Java reference MCP server (servers/CONTRACT.md): MCP Java SDK on embedded Jetty. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    // Read once by the JDK HTTP client when it loads: keep idle upstream connections 90 s
    // (JDK 17 keeps them 1200 s, newer JDKs 30 s); the per-host pool is unbounded by default.
    System.setProperty("jdk.httpclient.keepalive.timeout", "90");
    GcPauses.install();

    Config cfg;
    try {
      cfg = Config.fromEnv(System.getenv());
    } catch (IllegalArgumentException e) {
      System.out.println("fatal: " + e.getMessage());
      System.exit(2);
      return;
    }
    App app;
    try {
      app = App.start(cfg, System.getenv());
    } catch (Exception e) {
      System.out.println("fatal: cannot start: " + e);
      System.exit(1);
      return;
    }

    // SIGTERM/SIGINT run shutdown hooks; halt(0) after a clean stop makes the exit code 0
    // instead of the JVM's 143. Registered only once startup has succeeded.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("shutting down: finishing in-flight requests");
      int code = 0;
      try {
        app.stop();
        System.out.println("stopped");
      } catch (Exception e) {
        System.out.println("shutdown failed: " + e);
        code = 1;
      }
      System.out.flush();
      Runtime.getRuntime().halt(code);
    }, "shutdown"));

    System.out.printf("perflab java server listening on http://127.0.0.1:%d (stateless=%b json_response=%b processors=%d jdk=%s)%n",
        app.port(), cfg.stateless(), cfg.jsonResponse(), Runtime.getRuntime().availableProcessors(), Runtime.version());
    System.out.flush();
    app.join();
  }
}
