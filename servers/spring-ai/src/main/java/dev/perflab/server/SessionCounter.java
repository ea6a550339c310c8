package dev.perflab.server;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * In front of /mcp: refuses bodies over the contract's 8 MiB with 413 before the transport reads
 * them, and counts open sessions for /debug/runtime (Spring AI's transport keeps its map private):
 * one more for each session id an initialize answer issues, one fewer for each DELETE it accepts.
 */
@Component
class SessionCounter extends OncePerRequestFilter {
  static final long MAX_BODY = 8L << 20;
  private static final String SESSION_HEADER = "Mcp-Session-Id";

  private final Set<String> sessions = ConcurrentHashMap.newKeySet();

  int count() {
    return sessions.size();
  }

  @Override
  protected boolean shouldNotFilter(HttpServletRequest req) {
    return !req.getRequestURI().equals("/mcp");
  }

  @Override
  protected void doFilterInternal(HttpServletRequest req, HttpServletResponse resp, FilterChain chain)
      throws ServletException, IOException {
    if (req.getContentLengthLong() > MAX_BODY) {
      resp.setStatus(413);
      resp.setContentType("application/json");
      resp.setHeader("Connection", "close");
      resp.getWriter().write("{\"error\":\"request body larger than 8388608 bytes\"}");
      return;
    }
    chain.doFilter(req, resp);
    String id = req.getHeader(SESSION_HEADER);
    if ("POST".equals(req.getMethod()) && id == null) {
      String issued = resp.getHeader(SESSION_HEADER);
      if (issued != null) {
        sessions.add(issued);
      }
    } else if ("DELETE".equals(req.getMethod()) && id != null && resp.getStatus() < 300) {
      sessions.remove(id);
    }
  }
}
