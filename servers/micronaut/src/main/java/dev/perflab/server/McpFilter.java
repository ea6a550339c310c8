package dev.perflab.server;

import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Filter;
import io.micronaut.http.filter.HttpServerFilter;
import io.micronaut.http.filter.ServerFilterChain;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.InitializeResult;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import java.io.IOException;
import java.util.regex.Pattern;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * In front of Micronaut MCP's controller at /mcp (POST), what CONTRACT.md section 2 asks and its
 * stateless, JSON-only transport does not do: the Host/Origin check, sessions (issued on
 * initialize, 404 once deleted), JSON-RPC errors answered 200 (the module maps them to 400/500,
 * which clients read as a failed transport), and one SSE message event unless MCP_JSON_RESPONSE=1.
 */
@Filter({"/mcp", "/mcp/**"})
class McpFilter implements HttpServerFilter {
  static final String SESSION_HEADER = "Mcp-Session-Id";
  private static final Pattern LOCAL_HOST = Pattern.compile("(127\\.0\\.0\\.1|localhost)(:\\d+)?");
  private static final Pattern LOCAL_ORIGIN = Pattern.compile("https?://(127\\.0\\.0\\.1|localhost)(:\\d+)?");

  private final Config cfg;
  private final McpSessions sessions;
  private final McpJsonMapper jsonMapper;

  McpFilter(Config cfg, McpSessions sessions, McpJsonMapper jsonMapper) {
    this.cfg = cfg;
    this.sessions = sessions;
    this.jsonMapper = jsonMapper;
  }

  @Override
  public Publisher<MutableHttpResponse<?>> doFilter(HttpRequest<?> request, ServerFilterChain chain) {
    String refusal = refusal(request);
    if (refusal != null) {
      return Mono.<MutableHttpResponse<?>>just(error(HttpStatus.FORBIDDEN, refusal));
    }
    boolean post = request.getMethod() == HttpMethod.POST;
    if (cfg.stateless() && !post) {
      return Mono.<MutableHttpResponse<?>>just(error(HttpStatus.METHOD_NOT_ALLOWED, "method not allowed without sessions"));
    }
    String session = request.getHeaders().get(SESSION_HEADER);
    if (!cfg.stateless() && (session != null || !post) && !sessions.isOpen(session)) {
      return Mono.<MutableHttpResponse<?>>just(error(HttpStatus.NOT_FOUND, "unknown session"));
    }
    if (!post) {
      return chain.proceed(request); // McpStreams: the GET stream and DELETE
    }
    if (sessions.draining()) {
      return Mono.<MutableHttpResponse<?>>just(error(HttpStatus.SERVICE_UNAVAILABLE, "shutting down").header("Connection", "close"));
    }
    sessions.inFlight().incrementAndGet();
    return Flux.<MutableHttpResponse<?>>from(chain.proceed(request))
        .<MutableHttpResponse<?>>map(response -> finish(response, session))
        .doFinally(signal -> sessions.inFlight().decrementAndGet());
  }

  /** DNS-rebinding guard: section 2 serves 127.0.0.1 and localhost only, whatever the Origin. */
  private static String refusal(HttpRequest<?> request) {
    String host = request.getHeaders().get("Host");
    if (host == null || !LOCAL_HOST.matcher(host).matches()) {
      return "host not allowed";
    }
    String origin = request.getHeaders().get("Origin");
    if (origin != null && !LOCAL_ORIGIN.matcher(origin).matches()) {
      return "origin not allowed";
    }
    return null;
  }

  private MutableHttpResponse<?> finish(MutableHttpResponse<?> response, String session) {
    if (!(response.getBody().orElse(null) instanceof JSONRPCResponse message)) {
      return response; // 202 for notifications, or the module's own refusal
    }
    if (message.error() != null) {
      response.status(HttpStatus.OK);
    }
    if (!cfg.stateless() && session == null && message.result() instanceof InitializeResult) {
      response.header(SESSION_HEADER, sessions.issue());
    }
    if (cfg.jsonResponse()) {
      return response;
    }
    try {
      String sse = "event: message\ndata: " + jsonMapper.writeValueAsString(message) + "\n\n";
      return response.body(sse).contentType(MediaType.TEXT_EVENT_STREAM_TYPE);
    } catch (IOException e) {
      return error(HttpStatus.INTERNAL_SERVER_ERROR, "cannot encode the answer");
    }
  }

  static MutableHttpResponse<String> error(HttpStatus status, String message) {
    String body = new Json(96).beginObject().field("error", message).endObject().toString();
    return HttpResponse.<String>status(status).contentType(MediaType.APPLICATION_JSON_TYPE).body(body);
  }
}
