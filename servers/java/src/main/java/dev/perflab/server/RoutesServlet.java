package dev.perflab.server;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;
import java.util.regex.Pattern;

/** The plain routes of CONTRACT.md section 7: /health, /rest/time, /rest/users/:id, /debug/runtime. */
final class RoutesServlet extends HttpServlet {
  private static final Pattern USER_ID = Pattern.compile("[1-9][0-9]{0,8}");
  private static final byte[] OK = "{\"status\":\"ok\"}".getBytes(StandardCharsets.US_ASCII);

  private final transient Config cfg;
  private final transient Backends backends;
  private final transient IntSupplier sessions;

  RoutesServlet(Config cfg, Backends backends, IntSupplier sessions) {
    this.cfg = cfg;
    this.backends = backends;
    this.sessions = sessions;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String path = req.getRequestURI();
    if (path.equals("/health")) {
      write(resp, 200, OK);
    } else if (path.equals("/rest/time")) {
      write(resp, 200, new Json().beginObject().field("now_ms", System.currentTimeMillis()).endObject().toString());
    } else if (path.equals("/debug/runtime")) {
      write(resp, 200, RuntimeInfo.render(cfg, sessions));
    } else if (path.startsWith("/rest/users/")) {
      restUser(resp, path.substring("/rest/users/".length()));
    } else {
      write(resp, 404, error("not found"));
    }
  }

  private void restUser(HttpServletResponse resp, String rawId) throws IOException {
    if (!USER_ID.matcher(rawId).matches()) {
      write(resp, 400, error("invalid id"));
      return;
    }
    try {
      write(resp, 200, backends.lookupUser(Integer.parseInt(rawId)));
    } catch (ToolException e) {
      boolean notFound = e.getMessage().startsWith("not_found:");
      write(resp, notFound ? 404 : 503, error(notFound ? "not found" : "database unavailable"));
    }
  }

  static String error(String message) {
    return new Json().beginObject().field("error", message).endObject().toString();
  }

  static void write(HttpServletResponse resp, int status, String body) throws IOException {
    write(resp, status, body.getBytes(StandardCharsets.UTF_8));
  }

  static void write(HttpServletResponse resp, int status, byte[] body) throws IOException {
    resp.setStatus(status);
    resp.setContentType("application/json");
    resp.setContentLength(body.length);
    resp.getOutputStream().write(body);
  }
}
