package dev.perflab.server;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * perflab's Spring AI MCP server (servers/CONTRACT.md): Spring Boot 4 + Spring AI's MCP server
 * starter, on Spring MVC here and on WebFlux in servers/spring-ai-webflux (which compiles this
 * class in), with the tools, backends and canonical JSON of servers/java.
 */
@SpringBootApplication
public class SpringAiServer {

  public static void main(String[] args) {
    // Read once by the JDK HTTP client when it loads: idle upstream connections live 90 s.
    System.setProperty("jdk.httpclient.keepalive.timeout", "90");
    GcPauses.install();
    // Reactor Netty's event loops (WebFlux) default to max(4, CPUs): follow the CPU limit instead.
    System.setProperty("reactor.netty.ioWorkerCount", Integer.toString(Runtime.getRuntime().availableProcessors()));
    Config cfg;
    try {
      cfg = Config.fromEnv(System.getenv());
    } catch (IllegalArgumentException e) {
      System.out.println("fatal: " + e.getMessage());
      System.exit(2);
      return;
    }
    SpringApplication app = new SpringApplication(SpringAiServer.class);
    app.setDefaultProperties(Map.of(
        "server.port", cfg.port(),
        "spring.ai.mcp.server.protocol", cfg.stateless() ? "STATELESS" : "STREAMABLE"));
    // Our own hook, in place before the start line: it ends GET streams (Tomcat's graceful stop
    // would wait on them), closes the context (in-flight calls finish), then exits 0, not 143.
    app.setRegisterShutdownHook(false);
    AtomicReference<ConfigurableApplicationContext> started = new AtomicReference<>();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(started.get()), "shutdown"));
    app.addListeners((WebServerInitializedEvent e) -> {
      started.set((ConfigurableApplicationContext) e.getApplicationContext());
      announce(cfg, e.getApplicationContext().getEnvironment().getProperty("spring.ai.mcp.server.name"), e.getWebServer().getPort());
    });
    try {
      app.run(args);
    } catch (RuntimeException e) {
      System.out.println("fatal: cannot start: " + e);
      System.out.flush();
      Runtime.getRuntime().halt(1);
    }
  }

  private static void stop(ConfigurableApplicationContext ctx) {
    System.out.println("shutting down: finishing in-flight requests");
    if (ctx != null && ctx.isActive()) {
      ctx.getBean(McpFront.class).closeStreams();
      ctx.close(); // waits for a refresh still in progress, then stops Tomcat gracefully
    }
    System.out.println("stopped");
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }

  private static void announce(Config cfg, String name, int port) {
    System.out.printf(
        "%s listening on http://127.0.0.1:%d (stateless=%b json_response=%b processors=%d jdk=%s virtual_threads=%s)%n",
        name, port, cfg.stateless(), cfg.jsonResponse(), Runtime.getRuntime().availableProcessors(), Runtime.version(),
        System.getProperty("spring.threads.virtual.enabled", System.getenv().getOrDefault("SPRING_THREADS_VIRTUAL_ENABLED", "false")));
    System.out.flush();
  }

  /** Checked once more in main, before Spring starts, so a bad value exits 2 with its reason. */
  @Bean
  Config config() {
    return Config.fromEnv(System.getenv());
  }

  @Bean(destroyMethod = "close")
  Backends backends() {
    return new Backends(System.getenv());
  }

  @Bean
  Tools tools(Backends backends) {
    return new Tools(backends, new DocumentValidator());
  }
}
