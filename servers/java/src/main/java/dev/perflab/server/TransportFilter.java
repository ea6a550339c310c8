package dev.perflab.server;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpStatus;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Wraps the SDK's servlet at /mcp to meet CONTRACT.md where the SDK falls short:
 * <ul>
 *   <li>GET streams send their headers at once and an SSE comment every 15 s (the SDK sends
 *       nothing until the first event, and Jetty would close a silent connection);
 *   <li>GET streams end on DELETE of their session and at shutdown;
 *   <li>JSON bodies the SDK writes with status 200 (initialize, stateless answers) are framed as
 *       one SSE {@code message} event unless MCP_JSON_RESPONSE=1;
 *   <li>error bodies become plain JSON-RPC errors (the SDK serialises its exception, stack trace
 *       included);
 *   <li>open sessions are counted for /debug/runtime.
 * </ul>
 */
final class TransportFilter extends HttpFilter {
  private static final String SESSION_HEADER = "Mcp-Session-Id";
  private static final String KEEP_ALIVE = ": keep-alive\n\n";

  private final transient Config cfg;
  private final transient Set<String> sessions = ConcurrentHashMap.newKeySet();
  private final transient Map<AsyncContext, String> streams = new ConcurrentHashMap<>();
  private final transient ScheduledExecutorService keepAlive;
  private final transient JsonMapper mapper = JsonMapper.shared();

  TransportFilter(Config cfg) {
    this.cfg = cfg;
    if (cfg.stateless()) {
      keepAlive = null;
    } else {
      keepAlive = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sse-keepalive");
        t.setDaemon(true);
        return t;
      });
      keepAlive.scheduleWithFixedDelay(this::sendKeepAlives, 15, 15, TimeUnit.SECONDS);
    }
  }

  int sessionCount() {
    return sessions.size();
  }

  @Override
  protected void doFilter(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
      throws IOException, ServletException {
    Capture capture = new Capture(resp, !cfg.jsonResponse());
    chain.doFilter(req, capture);
    capture.finish();
    if (cfg.stateless()) {
      return;
    }
    String sessionId = req.getHeader(SESSION_HEADER);
    switch (req.getMethod()) {
      case "POST" -> {
        String issued = resp.getHeader(SESSION_HEADER);
        if (issued != null && resp.getStatus() == 200) {
          sessions.add(issued);
        }
      }
      case "GET" -> {
        if (req.isAsyncStarted() && resp.getStatus() == 200) {
          track(req.getAsyncContext(), sessionId);
          resp.flushBuffer(); // commits 200 + text/event-stream now, before any event
        }
      }
      case "DELETE" -> {
        if (sessionId != null && (resp.getStatus() == 200 || resp.getStatus() == 404)) {
          sessions.remove(sessionId);
          streams.forEach((ctx, sid) -> {
            if (sid.equals(sessionId)) {
              complete(ctx);
            }
          });
        }
      }
      default -> {}
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

  /**
   * Writes an SSE comment to every GET stream. Nothing else writes to these streams (the contract
   * has no server-initiated messages and the SDK's own ping is off), so writes cannot interleave.
   */
  private void sendKeepAlives() {
    for (AsyncContext ctx : streams.keySet()) {
      try {
        PrintWriter w = ctx.getResponse().getWriter();
        w.write(KEEP_ALIVE);
        w.flush();
        if (w.checkError()) {
          complete(ctx); // the client is gone
        }
      } catch (IOException | RuntimeException e) {
        complete(ctx);
      }
    }
  }

  /** Ends every GET stream at once; POSTs in flight are left to finish. */
  void closeStreams() {
    if (keepAlive != null) {
      keepAlive.shutdownNow();
    }
    streams.keySet().forEach(TransportFilter::complete);
  }

  private static void complete(AsyncContext ctx) {
    try {
      ctx.complete();
    } catch (IllegalStateException e) {
      // already completed by the SDK or the container
    }
  }

  /**
   * Buffers error bodies, which this filter rewrites; frames a JSON answer as one SSE event while
   * the SDK writes it, without a copy; passes SSE streams through.
   */
  private final class Capture extends HttpServletResponseWrapper {
    private static final String SSE_PREFIX = "event: message\ndata: ";
    private static final String SSE_SUFFIX = "\n\n";

    private final boolean frameJsonAsSse;
    private StringWriter buffer;
    private PrintWriter framed;
    private PrintWriter writer;

    Capture(HttpServletResponse resp, boolean frameJsonAsSse) {
      super(resp);
      this.frameJsonAsSse = frameJsonAsSse;
    }

    @Override
    public PrintWriter getWriter() throws IOException {
      if (writer == null) {
        int status = getStatus();
        boolean json = getContentType() != null && getContentType().startsWith("application/json");
        if (status >= 400) {
          buffer = new StringWriter();
          writer = new PrintWriter(buffer);
        } else if (frameJsonAsSse && status == 200 && json) {
          // The SDK has set every header (status, session id) before it asks for the writer, and
          // writes one JSON text without raw newlines: one data line carries the whole message.
          HttpServletResponse resp = (HttpServletResponse) getResponse();
          resp.setContentType("text/event-stream");
          resp.setCharacterEncoding("UTF-8");
          resp.setHeader("Cache-Control", "no-cache");
          // Encoded here rather than by the container's writer: Java's UTF-8 encoder writes an
          // unpaired surrogate as "?" (CONTRACT section 3), where Jetty's would send invalid UTF-8.
          framed =
              new PrintWriter(
                  new OutputStreamWriter(resp.getOutputStream(), StandardCharsets.UTF_8), false);
          framed.write(SSE_PREFIX);
          writer = new FramedWriter(framed);
        } else {
          writer = super.getWriter();
        }
      }
      return writer;
    }

    void finish() throws IOException {
      if (framed != null) {
        // Jetty sends Content-Length when the whole answer fits its output buffer, else chunks.
        framed.write(SSE_SUFFIX);
        framed.flush();
        return;
      }
      if (buffer == null) {
        return;
      }
      writer.flush();
      HttpServletResponse resp = (HttpServletResponse) getResponse();
      byte[] bytes = cleanError(getStatus(), buffer.toString()).getBytes(StandardCharsets.UTF_8);
      resp.setContentType("application/json");
      resp.setContentLength(bytes.length);
      resp.getOutputStream().write(bytes);
    }
  }

  /**
   * Writes through to the response's writer but keeps the SDK from flushing or closing it, so the
   * event's closing blank line follows in the same response and small answers still go out in one
   * write (the container flushes when the request completes).
   */
  private static final class FramedWriter extends PrintWriter {
    FramedWriter(PrintWriter out) {
      super(out, false);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }

  /** Keeps the JSON-RPC code and message of the SDK's serialised McpError, drops the rest. */
  private String cleanError(int status, String body) {
    int code = status >= 500 ? -32603 : -32600;
    String message = HttpStatus.getMessage(status);
    try {
      JsonNode node = mapper.readTree(body);
      JsonNode err = node.has("jsonRpcError") ? node.get("jsonRpcError") : node.path("error");
      if (err.path("code").isIntegralNumber()) {
        code = err.get("code").intValue();
      }
      if (err.path("message").isString()) {
        message = err.get("message").stringValue();
      }
    } catch (RuntimeException e) {
      // not JSON: keep the HTTP reason
    }
    return new Json(128).beginObject()
        .field("jsonrpc", "2.0")
        .name("id").nullValue()
        .name("error").beginObject().field("code", code).field("message", message).endObject()
        .endObject().toString();
  }
}
