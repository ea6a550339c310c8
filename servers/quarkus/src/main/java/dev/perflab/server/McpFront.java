package dev.perflab.server;

import io.quarkiverse.mcp.server.McpServer;
import io.quarkiverse.mcp.server.http.runtime.StreamableHttpMcpMessageHandler;
import io.quarkiverse.mcp.server.runtime.ConnectionManager;
import io.quarkiverse.mcp.server.runtime.McpConnectionBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.impl.RoutingContextDecorator;
import io.vertx.ext.web.impl.RoutingContextInternal;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * In front of the Quarkiverse Streamable HTTP transport at /mcp, what CONTRACT.md section 2 asks and
 * the transport does not do: the Host check (its own guard reads only Origin), the 8 MiB limit,
 * SSE answers by default ({@link SseFraming}), no sessions when stateless, GET streams ended at
 * shutdown, and the open sessions counted for /debug/runtime.
 */
@Singleton
class McpFront {
  static final long MAX_BODY = 8L << 20;
  private static final String SESSION_HEADER = "Mcp-Session-Id";
  /** HttpMcpServerRecorder's key for the MCP server a request belongs to (package-private there). */
  private static final String SERVER_NAME_KEY = "mcp.http.server-name";
  private static final Pattern LOCAL_HOST = Pattern.compile("(127\\.0\\.0\\.1|localhost)(:\\d+)?");
  private static final Pattern LOCAL_ORIGIN = Pattern.compile("https?://(127\\.0\\.0\\.1|localhost)(:\\d+)?");

  @Inject
  Config cfg;

  @Inject
  StreamableHttpMcpMessageHandler transport;

  @Inject
  ConnectionManager connections;

  private final Set<HttpServerResponse> streams = ConcurrentHashMap.newKeySet();

  /** Ordered before the extension's own /mcp route, which then serves only GET and DELETE. */
  void install(@Observes Router router) {
    router.route("/mcp").order(-30).handler(this::guard);
    router.post("/mcp").order(-29).handler(BodyHandler.create(false).setBodyLimit(MAX_BODY));
    router.post("/mcp").order(-28).handler(this::post);
  }

  private void guard(RoutingContext ctx) {
    String refusal = refusal(ctx);
    if (refusal != null) {
      Routes.json(ctx, 403, error(refusal));
      return;
    }
    HttpMethod method = ctx.request().method();
    if (cfg.stateless() && method != HttpMethod.POST) {
      Routes.json(ctx, 405, error("method not allowed without sessions"));
      return;
    }
    String session = ctx.request().getHeader(SESSION_HEADER);
    if (!cfg.stateless() && session != null && !connections.has(session)) {
      Routes.json(ctx, 404, error("unknown session")); // auto-init would serve it as a new one
      return;
    }
    if (method == HttpMethod.GET) {
      HttpServerResponse response = ctx.response();
      streams.add(response);
      ctx.addEndHandler(done -> streams.remove(response));
    }
    ctx.next();
  }

  /** DNS-rebinding guard: section 2 serves 127.0.0.1 and localhost only, whatever the Origin. */
  private static String refusal(RoutingContext ctx) {
    // The authority, not the Host header: an HTTP/2 request (Vert.x accepts h2c upgrades) has none.
    HostAndPort authority = ctx.request().authority();
    String host = authority == null ? "" : authority.host() + (authority.port() < 0 ? "" : ":" + authority.port());
    if (!LOCAL_HOST.matcher(host).matches()) {
      return "host not allowed";
    }
    String origin = ctx.request().getHeader("Origin");
    if (origin != null && !LOCAL_ORIGIN.matcher(origin).matches()) {
      return "origin not allowed";
    }
    return null;
  }

  private void post(RoutingContext ctx) {
    ctx.put(SERVER_NAME_KEY, McpServer.DEFAULT);
    if (cfg.stateless() && isNotification(ctx)) {
      // Auto-init initializes the new connection itself, so notifications/initialized would be an
      // "unsupported method" error; without sessions a notification changes nothing: 202.
      ctx.response().setStatusCode(202).end();
      return;
    }
    if (cfg.stateless()) {
      // The transport still issues a session for an initialize: drop it, header and state.
      ctx.addHeadersEndHandler(v -> {
        String id = ctx.response().headers().get(SESSION_HEADER);
        if (id != null) {
          ctx.response().headers().remove(SESSION_HEADER);
          connections.remove(id);
        }
      });
    }
    transport.handle(cfg.jsonResponse() ? ctx : framed(ctx));
  }

  /** A lone JSON-RPC notification (a method, no id); such bodies are small, so larger ones are not parsed. */
  private static boolean isNotification(RoutingContext ctx) {
    Buffer body = ctx.body().buffer();
    if (body == null || body.length() > 4096) {
      return false;
    }
    try {
      JsonObject message = body.toJsonObject();
      return message.containsKey("method") && !message.containsKey("id");
    } catch (RuntimeException e) {
      return false; // not one JSON object: the transport answers it
    }
  }

  private static RoutingContext framed(RoutingContext ctx) {
    HttpServerResponse response = SseFraming.wrap(ctx.response());
    return new RoutingContextDecorator(ctx.currentRoute(), (RoutingContextInternal) ctx) {
      @Override
      public HttpServerResponse response() {
        return response;
      }
    };
  }

  /** Open sessions: in stateful mode every connection the transport keeps is one. */
  int sessionCount() {
    int n = 0;
    for (McpConnectionBase ignored : connections) {
      n++;
    }
    return n;
  }

  /** Ends every GET stream at once (SIGTERM); POSTs in flight are left to finish. */
  void closeStreams() {
    for (HttpServerResponse response : streams) {
      try {
        response.end();
      } catch (RuntimeException e) {
        // already ended or reset by the client
      }
    }
  }

  private static String error(String message) {
    return new Json(96).beginObject().field("error", message).endObject().toString();
  }
}
