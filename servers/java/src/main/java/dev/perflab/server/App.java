package dev.perflab.server;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.ee11.servlet.ErrorHandler;
import org.eclipse.jetty.ee11.servlet.FilterHolder;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/** Wires the MCP SDK's servlet transport, the plain routes and the backends into embedded Jetty. */
final class App {
  /** The most VUs a perflab matrix may ask for (packages/contracts/src/matrix.ts). */
  static final int MAX_VUS = 5000;
  /**
   * A tool call holds its request thread until it answers (the servlet transport waits, and sleep
   * and fetch_upstream wait on that thread), so the pool must not cap concurrency below what a
   * matrix can ask for: one request in flight per VU, plus Jetty's acceptor, selectors and
   * reserved threads. Threads start on demand and retire after 60 s idle. Jetty's default is 200.
   */
  static final int MAX_THREADS = MAX_VUS + 100;
  /** CONTRACT.md section 2: a 1 MiB echo message of control characters is 6 MiB JSON-escaped. */
  static final int MAX_BODY_BYTES = 8 * 1024 * 1024;
  /**
   * In-flight requests get 3.5 s on SIGTERM: stopping the pool and the JVM's exit take up to
   * another second on a busy machine, and the contract allows 5 s in all.
   */
  static final long STOP_TIMEOUT_MS = 3500;
  /**
   * The listen backlog. Jetty's default (0) leaves the JDK's 50, which drops connection bursts
   * the other servers queue (Node 511, Rust/Tokio 1024, uvicorn 2048, Go the kernel's somaxconn).
   */
  static final int ACCEPT_QUEUE = 1024;

  private final Server server;
  private final ServerConnector connector;
  private final TransportFilter filter;
  private final Backends backends;

  private App(Server server, ServerConnector connector, TransportFilter filter, Backends backends) {
    this.server = server;
    this.connector = connector;
    this.filter = filter;
    this.backends = backends;
  }

  static App start(Config cfg, Map<String, String> env) throws Exception {
    cfg.check();
    Backends backends = new Backends(env);
    Tools tools = new Tools(backends, new DocumentValidator());
    TransportFilter filter = new TransportFilter(cfg);
    HttpServlet mcp = mcpServlet(cfg, tools);

    QueuedThreadPool threads = new QueuedThreadPool(MAX_THREADS, 8, 60_000);
    threads.setName("http");
    threads.setStopTimeout(250); // after the graceful wait, stuck threads are interrupted quickly
    Server server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
    connector.setHost("127.0.0.1");
    connector.setPort(cfg.port());
    connector.setIdleTimeout(120_000); // keep-alive connections, like Go's IdleTimeout
    connector.setAcceptQueueSize(ACCEPT_QUEUE);
    server.addConnector(connector);

    ServletContextHandler context = new ServletContextHandler("/");
    ServletHolder mcpHolder = new ServletHolder("mcp", mcp);
    mcpHolder.setAsyncSupported(true);
    context.addServlet(mcpHolder, "/mcp");
    FilterHolder filterHolder = new FilterHolder(filter);
    filterHolder.setAsyncSupported(true);
    context.addFilter(filterHolder, "/mcp", EnumSet.of(DispatcherType.REQUEST));
    ServletHolder routes = new ServletHolder("routes", new RoutesServlet(cfg, backends, filter::sessionCount));
    context.getServletHandler().addServletWithMapping(routes, "/health");
    context.getServletHandler().addServletWithMapping(routes, "/debug/runtime");
    context.getServletHandler().addServletWithMapping(routes, "/rest/*");
    context.setErrorHandler(new JsonErrorHandler());

    // GracefulHandler lets in-flight requests finish on stop, within the stop timeout.
    server.setHandler(new GracefulHandler(context));
    server.setStopTimeout(STOP_TIMEOUT_MS);
    server.setStopAtShutdown(false);
    server.start();
    return new App(server, connector, filter, backends);
  }

  private static HttpServlet mcpServlet(Config cfg, Tools tools) {
    McpJsonMapper json = McpJsonDefaults.getMapper();
    McpSchema.ServerCapabilities caps = McpSchema.ServerCapabilities.builder().tools(false).build();
    // The SDK's DNS-rebinding guard, open to the loopback names the contract requires.
    DefaultServerTransportSecurityValidator hosts = DefaultServerTransportSecurityValidator.builder()
        .allowedHost("127.0.0.1:*")
        .allowedHost("localhost:*")
        .build();
    // immediateExecution runs each tool on the Jetty thread that serves the request instead of
    // Reactor's boundedElastic pool, so CPU work competes with request handling (CONTRACT.md 4.2).
    if (cfg.stateless()) {
      HttpServletStatelessServerTransport transport = HttpServletStatelessServerTransport.builder()
          .jsonMapper(json).messageEndpoint("/mcp").httpHeaderValidator(hosts)
          .maxRequestSize(MAX_BODY_BYTES).build();
      List<McpStatelessServerFeatures.SyncToolSpecification> specs = Tools.DEFS.stream()
          .map(d -> McpStatelessServerFeatures.SyncToolSpecification.builder()
              .tool(tool(json, d))
              .callHandler((ctx, req) -> run(tools, req))
              .build())
          .toList();
      McpServer.sync(transport).serverInfo("perflab-java", "1.0.0").capabilities(caps)
          .immediateExecution(true).tools(specs).build();
      return transport;
    }
    // keepAliveInterval(null): the SDK's keep-alive is a JSON-RPC ping, a server-initiated
    // message the contract does not allow; TransportFilter sends SSE comments instead.
    // sessionSweepInterval(null): sessions have no idle timeout, they live until DELETE.
    HttpServletStreamableServerTransportProvider provider = HttpServletStreamableServerTransportProvider.builder()
        .jsonMapper(json).mcpEndpoint("/mcp").httpHeaderValidator(hosts).maxRequestSize(MAX_BODY_BYTES)
        .keepAliveInterval(null).sessionSweepInterval(null).build();
    List<McpServerFeatures.SyncToolSpecification> specs = Tools.DEFS.stream()
        .map(d -> McpServerFeatures.SyncToolSpecification.builder()
            .tool(tool(json, d))
            .callHandler((exchange, req) -> run(tools, req))
            .build())
        .toList();
    McpServer.sync(provider).serverInfo("perflab-java", "1.0.0").capabilities(caps)
        .immediateExecution(true).tools(specs).build();
    return provider;
  }

  private static McpSchema.Tool tool(McpJsonMapper json, Tools.Def d) {
    return McpSchema.Tool.builder(d.name()).description(d.description()).inputSchema(json, d.inputSchema()).build();
  }

  static McpSchema.CallToolResult run(Tools tools, McpSchema.CallToolRequest req) {
    try {
      return McpSchema.CallToolResult.builder().addTextContent(tools.call(req.name(), req.arguments())).build();
    } catch (ToolException e) {
      return McpSchema.CallToolResult.builder().addTextContent(e.getMessage()).isError(true).build();
    }
  }

  int port() {
    return connector.getLocalPort();
  }

  int acceptQueueSize() {
    return connector.getAcceptQueueSize();
  }

  /** Ends GET streams at once, stops accepting, lets POSTs in flight finish, then closes backends. */
  void stop() throws Exception {
    filter.closeStreams();
    try {
      server.stop();
    } catch (TimeoutException e) {
      System.out.println("shutdown deadline reached: closed the requests still running");
    } finally {
      backends.close();
    }
  }

  void join() throws InterruptedException {
    server.join();
  }

  /** Error bodies as {"error":"..."} JSON whatever the Accept header, never with a stack trace. */
  static final class JsonErrorHandler extends ErrorHandler {
    JsonErrorHandler() {
      setShowStacks(false);
      setShowCauses(false);
      setShowOrigin(false);
    }

    @Override
    protected boolean generateAcceptableResponse(Request request, Response response, Callback callback,
        String contentType, List<Charset> charsets, int code, String message, Throwable cause) throws IOException {
      return super.generateAcceptableResponse(request, response, callback, "application/json",
          List.of(StandardCharsets.UTF_8), code, message, cause);
    }

    @Override
    protected void writeErrorJson(Request request, PrintWriter writer, int code, String message, Throwable cause) {
      boolean ownMessage = message != null && !message.isBlank() && code < 500;
      writer.write(RoutesServlet.error(ownMessage ? message : HttpStatus.getMessage(code)));
    }
  }
}
