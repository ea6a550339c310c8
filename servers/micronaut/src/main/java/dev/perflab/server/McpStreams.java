package dev.perflab.server;

import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.sse.Event;
import org.reactivestreams.Publisher;

/** GET and DELETE of section 2's stateful mode at /mcp (McpFilter has checked the session). */
@Controller("/mcp")
class McpStreams {
  private final McpSessions sessions;

  McpStreams(McpSessions sessions) {
    this.sessions = sessions;
  }

  @Get(produces = MediaType.TEXT_EVENT_STREAM)
  Publisher<Event<String>> stream(@Header(McpFilter.SESSION_HEADER) String session) {
    return sessions.stream(session);
  }

  @Delete
  HttpResponse<?> end(@Header(McpFilter.SESSION_HEADER) String session) {
    return sessions.end(session) ? HttpResponse.noContent() : McpFilter.error(HttpStatus.NOT_FOUND, "unknown session");
  }
}
