package dev.perflab.server;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * servers/spring-ai's McpHttpFilter for WebFlux: in front of Spring AI's reactive transport at
 * /mcp, the Host/Origin check (403), the 8 MiB body limit (413), 405 without sessions, JSON answers
 * framed as one SSE event unless MCP_JSON_RESPONSE=1, GET streams opened with an SSE comment (their
 * headers go out with it) and kept alive every 15 s, streams ended at shutdown, sessions counted
 * (and a session id it has not seen issued, or has seen deleted, answered 404).
 */
@Component
class McpWebFilter implements WebFilter, McpFront {
  static final long MAX_BODY = 8L << 20;
  private static final String SESSION_HEADER = "Mcp-Session-Id";
  private static final Pattern LOCAL_HOST = Pattern.compile("(127\\.0\\.0\\.1|localhost)(:\\d+)?");
  private static final Pattern LOCAL_ORIGIN = Pattern.compile("https?://(127\\.0\\.0\\.1|localhost)(:\\d+)?");
  private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] PREFIX = "event: message\ndata: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SUFFIX = "\n\n".getBytes(StandardCharsets.US_ASCII);

  private final Config cfg;
  private final Set<String> sessions = ConcurrentHashMap.newKeySet();
  private final Sinks.One<Boolean> shutdown = Sinks.one();

  McpWebFilter(Config cfg) {
    this.cfg = cfg;
  }

  @Override
  public int sessionCount() {
    return sessions.size();
  }

  /** Ends every GET stream at once (SIGTERM); POSTs in flight are left to finish. */
  @Override
  public void closeStreams() {
    shutdown.tryEmitValue(true);
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    ServerHttpRequest req = exchange.getRequest();
    if (!req.getPath().value().equals("/mcp")) {
      return chain.filter(exchange);
    }
    ServerHttpResponse resp = exchange.getResponse();
    String refusal = refusal(req.getHeaders());
    if (refusal != null) {
      return writeError(resp, refusal.startsWith("request body") ? HttpStatus.CONTENT_TOO_LARGE : HttpStatus.FORBIDDEN, refusal);
    }
    String method = req.getMethod().name();
    String sessionId = req.getHeaders().getFirst(SESSION_HEADER);
    if (cfg.stateless() && !"POST".equals(method)) {
      return writeError(resp, HttpStatus.METHOD_NOT_ALLOWED, "method not allowed without sessions");
    }
    if (sessionId != null && !sessions.contains(sessionId)) {
      // Spring AI 2.0.0's WebFlux transport keeps answering a session after its DELETE.
      return writeError(resp, HttpStatus.NOT_FOUND, "session not found");
    }
    return switch (method) {
      case "POST" -> {
        if (sessionId == null) {
          resp.beforeCommit(() -> Mono.fromRunnable(() -> countIssued(resp)));
        }
        yield chain.filter(exchange.mutate().response(new Framing(resp, !cfg.jsonResponse())).build());
      }
      case "GET" -> chain.filter(exchange.mutate().response(new Stream(resp)).build());
      case "DELETE" -> chain.filter(exchange).then(Mono.fromRunnable(() -> {
        if (sessionId != null && resp.getStatusCode() != null && resp.getStatusCode().is2xxSuccessful()) {
          sessions.remove(sessionId);
        }
      }));
      default -> chain.filter(exchange);
    };
  }

  private void countIssued(ServerHttpResponse resp) {
    String issued = resp.getHeaders().getFirst(SESSION_HEADER);
    if (issued != null && (resp.getStatusCode() == null || resp.getStatusCode().value() == 200)) {
      sessions.add(issued);
    }
  }

  /** DNS-rebinding guard (section 2 accepts 127.0.0.1 and localhost) and the body limit. */
  private static String refusal(HttpHeaders headers) {
    String host = headers.getFirst(HttpHeaders.HOST);
    if (host == null || !LOCAL_HOST.matcher(host).matches()) {
      return "host not allowed";
    }
    String origin = headers.getFirst(HttpHeaders.ORIGIN);
    if (origin != null && !LOCAL_ORIGIN.matcher(origin).matches()) {
      return "origin not allowed";
    }
    if (headers.getContentLength() > MAX_BODY) {
      return "request body larger than " + MAX_BODY + " bytes";
    }
    return null;
  }

  private static Mono<Void> writeError(ServerHttpResponse resp, HttpStatus status, String message) {
    byte[] body = new Json(96).beginObject().field("error", message).endObject().toString()
        .getBytes(StandardCharsets.UTF_8);
    resp.setStatusCode(status);
    resp.getHeaders().setContentType(MediaType.APPLICATION_JSON);
    if (status == HttpStatus.CONTENT_TOO_LARGE) {
      resp.getHeaders().set(HttpHeaders.CONNECTION, "close"); // the rest of the body is not read
    }
    return resp.writeWith(Mono.just(resp.bufferFactory().wrap(body)));
  }

  /** Frames a JSON answer (status 200) as one SSE message event: prefix, the transport's bytes, blank line. */
  private static final class Framing extends ServerHttpResponseDecorator {
    private final boolean enabled;

    Framing(ServerHttpResponse resp, boolean enabled) {
      super(resp);
      this.enabled = enabled;
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
      MediaType type = getHeaders().getContentType();
      boolean ok = getStatusCode() == null || getStatusCode().value() == 200;
      if (!enabled || !ok || type == null || !type.isCompatibleWith(MediaType.APPLICATION_JSON)) {
        return super.writeWith(body);
      }
      getHeaders().setContentType(MediaType.TEXT_EVENT_STREAM);
      getHeaders().remove(HttpHeaders.CONTENT_LENGTH); // the transport's, for the bare JSON
      getHeaders().setCacheControl("no-cache");
      return super.writeWith(Flux.concat(
          Mono.fromSupplier(() -> bufferFactory().wrap(PREFIX)), body, Mono.fromSupplier(() -> bufferFactory().wrap(SUFFIX))));
    }
  }

  /** A GET stream: a comment at once (the transport sends nothing until an event) and every 15 s. */
  private final class Stream extends ServerHttpResponseDecorator {
    Stream(ServerHttpResponse resp) {
      super(resp);
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
      Sinks.One<Boolean> done = Sinks.one();
      Flux<Publisher<? extends DataBuffer>> events =
          Flux.<Publisher<? extends DataBuffer>>from(body).doFinally(s -> done.tryEmitValue(true));
      Flux<Publisher<? extends DataBuffer>> keepAlive = Flux.interval(Duration.ZERO, Duration.ofSeconds(15))
          .<Publisher<? extends DataBuffer>>map(i -> Mono.fromSupplier(() -> bufferFactory().wrap(KEEP_ALIVE)))
          .takeUntilOther(done.asMono());
      return super.writeAndFlushWith(Flux.merge(keepAlive, events).takeUntilOther(shutdown.asMono()));
    }
  }
}
