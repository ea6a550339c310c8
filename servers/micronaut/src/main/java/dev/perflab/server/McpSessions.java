package dev.perflab.server;

import io.micronaut.http.sse.Event;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * The sessions of section 2's stateful mode, which Micronaut MCP 0.0.19's HTTP transport (stateless
 * only) does not keep: ids issued on initialize, their GET streams, and the POSTs in flight that a
 * graceful stop waits for.
 */
@Singleton
class McpSessions {
  private final Set<String> open = ConcurrentHashMap.newKeySet();
  private final Map<String, Sinks.Empty<Void>> streams = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;

  String issue() {
    String id = UUID.randomUUID().toString();
    open.add(id);
    return id;
  }

  boolean isOpen(String id) {
    return id != null && open.contains(id);
  }

  int count() {
    return open.size();
  }

  /** DELETE: the session and its GET stream end; later requests naming it get 404. */
  boolean end(String id) {
    if (id == null || !open.remove(id)) {
      return false;
    }
    Sinks.Empty<Void> stream = streams.remove(id);
    if (stream != null) {
      stream.tryEmitEmpty();
    }
    return true;
  }

  /**
   * The session's GET stream: a comment at once (so the headers go out before any event), one
   * every 15 s, and no events, since the contract has no server-initiated messages.
   */
  Flux<Event<String>> stream(String id) {
    Sinks.Empty<Void> done = Sinks.empty();
    Sinks.Empty<Void> previous = streams.put(id, done);
    if (previous != null) {
      previous.tryEmitEmpty();
    }
    return Flux.interval(Duration.ZERO, Duration.ofSeconds(15))
        .map(tick -> Event.of("").comment("keep-alive"))
        .takeUntilOther(done.asMono())
        .doFinally(signal -> streams.remove(id, done));
  }

  /** Ends every GET stream at once and refuses new POSTs (SIGTERM); those in flight finish. */
  void drain() {
    draining = true;
    streams.values().forEach(Sinks.Empty::tryEmitEmpty);
  }

  boolean draining() {
    return draining;
  }

  AtomicInteger inFlight() {
    return inFlight;
  }
}
