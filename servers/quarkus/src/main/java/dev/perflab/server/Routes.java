package dev.perflab.server;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.regex.Pattern;

/** The plain routes of CONTRACT.md section 7 on Quarkus' Vert.x router, with servers/java's canonical JSON. */
@ApplicationScoped
class Routes {
  private static final Pattern USER_ID = Pattern.compile("[1-9][0-9]{0,8}");

  @Inject
  Config cfg;

  @Inject
  Backends backends;

  @Inject
  McpFront front;

  void install(@Observes Router router) {
    router.get("/health").handler(ctx -> json(ctx, 200, "{\"status\":\"ok\"}"));
    router.get("/rest/time").handler(ctx -> json(ctx, 200,
        new Json().beginObject().field("now_ms", System.currentTimeMillis()).endObject().toString()));
    router.get("/debug/runtime").handler(ctx -> json(ctx, 200, RuntimeInfo.render(cfg, front::sessionCount)));
    // JDBC blocks: on the worker pool, never on the event loop.
    router.get("/rest/users/:id").blockingHandler(this::user);
  }

  private void user(RoutingContext ctx) {
    String id = ctx.pathParam("id");
    if (!USER_ID.matcher(id).matches()) {
      json(ctx, 400, error("invalid id"));
      return;
    }
    try {
      json(ctx, 200, backends.lookupUser(Integer.parseInt(id)));
    } catch (ToolException e) {
      boolean notFound = e.getMessage().startsWith("not_found:");
      json(ctx, notFound ? 404 : 503, error(notFound ? "not found" : "database unavailable"));
    }
  }

  private static String error(String message) {
    return new Json().beginObject().field("error", message).endObject().toString();
  }

  static void json(RoutingContext ctx, int status, String body) {
    ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body);
  }
}
