package dev.perflab.server;

import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;
import java.util.Map;
import sun.misc.Signal;

/**
 * perflab's Micronaut MCP server (servers/CONTRACT.md): Micronaut 4 on Netty + Micronaut MCP's
 * server (the MCP Java SDK's stateless server behind its HTTP controller), with the tools,
 * backends and canonical JSON of servers/java.
 */
public class MicronautServer {
  private static final long DRAIN_MS = 3_500;

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
    int processors = Runtime.getRuntime().availableProcessors();
    ApplicationContext ctx;
    try {
      ctx = Micronaut.build(args)
          .mainClass(MicronautServer.class)
          .banner(false)
          .properties(Map.of(
              "micronaut.server.port", cfg.port(),
              // Netty's default is two event loops per CPU: follow the CPU limit, as the contract asks.
              "micronaut.netty.event-loops.default.num-threads", processors))
          .start();
    } catch (RuntimeException e) {
      System.out.println("fatal: cannot start: " + e);
      System.out.flush();
      Runtime.getRuntime().halt(1);
      return;
    }
    // Our own handlers, in place before the start line: Micronaut's shutdown hook would exit 143
    // and close Netty without waiting for calls in flight.
    McpSessions sessions = ctx.getBean(McpSessions.class);
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), signal -> stop(ctx, sessions));
    }
    System.out.printf(
        "perflab-micronaut listening on http://127.0.0.1:%d (stateless=%b json_response=%b processors=%d jdk=%s)%n",
        cfg.port(), cfg.stateless(), cfg.jsonResponse(), processors, Runtime.version());
    System.out.flush();
  }

  /** Streams end at once, new POSTs are refused, those in flight get up to 3.5 s; then exit 0. */
  private static void stop(ApplicationContext ctx, McpSessions sessions) {
    System.out.println("shutting down: finishing in-flight requests");
    sessions.drain();
    long deadline = System.currentTimeMillis() + DRAIN_MS;
    while (sessions.inFlight().get() > 0 && System.currentTimeMillis() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        break;
      }
    }
    ctx.close();
    System.out.println("stopped");
    System.out.flush();
    System.exit(0); // not halt: the JVM writes the AOT cache of a training start (build.sh) on exit
  }
}
