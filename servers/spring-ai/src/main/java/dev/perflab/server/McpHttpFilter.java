package dev.perflab.server;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * In front of Spring AI's transport at /mcp, what CONTRACT.md section 2 asks and the transport
 * does not do: the Host/Origin check (403), the 8 MiB body limit (413), JSON answers framed as one
 * SSE event unless MCP_JSON_RESPONSE=1 ({@link SseFraming}), GET stream headers sent at once with
 * an SSE comment every 15 s, streams ended at shutdown, and open sessions counted.
 */
@Component
class McpHttpFilter extends OncePerRequestFilter implements McpFront {
  static final long MAX_BODY = 8L << 20;
  private static final String SESSION_HEADER = "Mcp-Session-Id";
  private static final Pattern LOCAL_HOST = Pattern.compile("(127\\.0\\.0\\.1|localhost)(:\\d+)?");
  private static final Pattern LOCAL_ORIGIN = Pattern.compile("https?://(127\\.0\\.0\\.1|localhost)(:\\d+)?");
  private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

  private final Config cfg;
  private final Set<String> sessions = ConcurrentHashMap.newKeySet();
  private final Map<AsyncContext, String> streams = new ConcurrentHashMap<>();
  private final ScheduledExecutorService keepAlive = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sse-keepalive");
    t.setDaemon(true);
    return t;
  });

  McpHttpFilter(Config cfg) {
    this.cfg = cfg;
    keepAlive.scheduleWithFixedDelay(this::sendKeepAlives, 15, 15, TimeUnit.SECONDS);
  }

  @Override
  public int sessionCount() {
    return sessions.size();
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest req) {
    return !req.getRequestURI().equals("/mcp");
  }

  @Override
  protected void doFilterInternal(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
      throws ServletException, IOException {
    String refusal = refusal(req);
    if (refusal != null) {
      int status = refusal.startsWith("request body") ? 413 : 403;
      writeError(resp, status, refusal);
      return;
    }
    String method = req.getMethod();
    if (cfg.stateless() && !"POST".equals(method)) {
      writeError(resp, 405, "method not allowed without sessions"); // Spring AI answers 404
      return;
    }
    if (!"POST".equals(method)) {
      chain.doFilter(req, resp);
      afterStreamOrDelete(req, resp, method);
      return;
    }
    SseFraming framing = new SseFraming(resp, !cfg.jsonResponse());
    chain.doFilter(req, framing);
    framing.finish();
    String issued = resp.getHeader(SESSION_HEADER);
    if (req.getHeader(SESSION_HEADER) == null && issued != null && resp.getStatus() == 200) {
      sessions.add(issued);
    }
  }

  /** DNS-rebinding guard (section 2 accepts 127.0.0.1 and localhost) and the body limit. */
  private static String refusal(HttpServletRequest req) {
    String host = req.getHeader("Host");
    if (host == null || !LOCAL_HOST.matcher(host).matches()) {
      return "host not allowed";
    }
    String origin = req.getHeader("Origin");
    if (origin != null && !LOCAL_ORIGIN.matcher(origin).matches()) {
      return "origin not allowed";
    }
    if (req.getContentLengthLong() > MAX_BODY) {
      return "request body larger than " + MAX_BODY + " bytes";
    }
    return null;
  }

  private void afterStreamOrDelete(HttpServletRequest req, HttpServletResponse resp, String method) throws IOException {
    String sessionId = req.getHeader(SESSION_HEADER);
    if ("GET".equals(method) && req.isAsyncStarted() && resp.getStatus() == 200) {
      track(req.getAsyncContext(), sessionId);
      resp.setContentType("text/event-stream");
      resp.flushBuffer(); // the transport holds the headers back until its first event
    } else if ("DELETE".equals(method) && sessionId != null && resp.getStatus() < 300) {
      sessions.remove(sessionId);
    }
  }

  private void track(AsyncContext ctx, String sessionId) {
    streams.put(ctx, sessionId == null ? "" : sessionId);
    ctx.addListener(new AsyncListener() {
      @Override
      public void onComplete(AsyncEvent event) {
        streams.remove(ctx);
      }

      @Override
      public void onTimeout(AsyncEvent event) {
        streams.remove(ctx);
      }

      @Override
      public void onError(AsyncEvent event) {
        streams.remove(ctx);
      }

      @Override
      public void onStartAsync(AsyncEvent event) {}
    });
  }

  /** An SSE comment on every GET stream: the contract has no server events, and dead clients show. */
  private void sendKeepAlives() {
    for (AsyncContext ctx : streams.keySet()) {
      try {
        var out = ctx.getResponse().getOutputStream();
        synchronized (ctx.getResponse()) {
          out.write(KEEP_ALIVE);
          out.flush();
        }
      } catch (IOException | RuntimeException e) {
        complete(ctx);
      }
    }
  }

  /** Ends every GET stream at once (SIGTERM); POSTs in flight are left to finish. */
  @Override
  public void closeStreams() {
    keepAlive.shutdownNow();
    streams.keySet().forEach(McpHttpFilter::complete);
  }

  private static void complete(AsyncContext ctx) {
    try {
      ctx.complete();
    } catch (IllegalStateException e) {
      // already completed by the transport or the container
    }
  }

  private static void writeError(HttpServletResponse resp, int status, String message) throws IOException {
    byte[] body = new Json(96).beginObject().field("error", message).endObject().toString()
        .getBytes(StandardCharsets.UTF_8);
    resp.setStatus(status);
    resp.setContentType("application/json");
    resp.setContentLength(body.length);
    if (status == 413) {
      resp.setHeader("Connection", "close"); // the rest of the body is not read
    }
    resp.getOutputStream().write(body);
  }
}
