package dev.perflab.server;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.regex.Pattern;

/** The plain routes of CONTRACT.md section 7, answered with servers/java's canonical JSON. */
@Controller
class Routes {
  private static final Pattern USER_ID = Pattern.compile("[1-9][0-9]{0,8}");

  private final Config cfg;
  private final Backends backends;
  private final McpSessions sessions;

  Routes(Config cfg, Backends backends, McpSessions sessions) {
    this.cfg = cfg;
    this.backends = backends;
    this.sessions = sessions;
  }

  @Get(uri = "/health", produces = MediaType.APPLICATION_JSON)
  HttpResponse<String> health() {
    return HttpResponse.ok("{\"status\":\"ok\"}");
  }

  @Get(uri = "/rest/time", produces = MediaType.APPLICATION_JSON)
  HttpResponse<String> time() {
    return HttpResponse.ok(new Json().beginObject().field("now_ms", System.currentTimeMillis()).endObject().toString());
  }

  @Get(uri = "/debug/runtime", produces = MediaType.APPLICATION_JSON)
  HttpResponse<String> runtime() {
    return HttpResponse.ok(RuntimeInfo.render(cfg, sessions::count));
  }

  /** JDBC blocks: on Micronaut's blocking executor, never on the event loop. */
  @ExecuteOn(TaskExecutors.BLOCKING)
  // {+id}: a plain {id} does not match a segment such as "+1", which must be a 400, not a 404.
  @Get(uri = "/rest/users/{+id}", produces = MediaType.APPLICATION_JSON)
  HttpResponse<String> user(String id) {
    if (!USER_ID.matcher(id).matches()) {
      return HttpResponse.badRequest(error("invalid id"));
    }
    try {
      return HttpResponse.ok(backends.lookupUser(Integer.parseInt(id)));
    } catch (ToolException e) {
      boolean notFound = e.getMessage().startsWith("not_found:");
      return notFound ? HttpResponse.notFound(error("not found")) : HttpResponse.<String>serverError(error("database unavailable")).status(503);
    }
  }

  private static String error(String message) {
    return new Json().beginObject().field("error", message).endObject().toString();
  }
}
