package dev.perflab.server;

import java.util.regex.Pattern;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** The plain routes of CONTRACT.md section 7, answered with servers/java's canonical JSON. */
@RestController
class Routes {
  private static final Pattern USER_ID = Pattern.compile("[1-9][0-9]{0,8}");

  private final Config cfg;
  private final Backends backends;
  private final McpFront sessions;

  Routes(Config cfg, Backends backends, McpFront sessions) {
    this.cfg = cfg;
    this.backends = backends;
    this.sessions = sessions;
  }

  @GetMapping("/health")
  ResponseEntity<String> health() {
    return json(200, "{\"status\":\"ok\"}");
  }

  @GetMapping("/rest/time")
  ResponseEntity<String> time() {
    return json(200, new Json().beginObject().field("now_ms", System.currentTimeMillis()).endObject().toString());
  }

  @GetMapping("/debug/runtime")
  ResponseEntity<String> runtime() {
    return json(200, RuntimeInfo.render(cfg, sessions::sessionCount));
  }

  @GetMapping("/rest/users/{id}")
  ResponseEntity<String> user(@PathVariable String id) {
    if (!USER_ID.matcher(id).matches()) {
      return json(400, error("invalid id"));
    }
    try {
      return json(200, backends.lookupUser(Integer.parseInt(id)));
    } catch (ToolException e) {
      boolean notFound = e.getMessage().startsWith("not_found:");
      return json(notFound ? 404 : 503, error(notFound ? "not found" : "database unavailable"));
    }
  }

  private static String error(String message) {
    return new Json().beginObject().field("error", message).endObject().toString();
  }

  private static ResponseEntity<String> json(int status, String body) {
    return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON).body(body);
  }
}
