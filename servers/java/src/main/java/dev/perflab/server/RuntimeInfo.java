package dev.perflab.server;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntSupplier;

/** The /debug/runtime document (CONTRACT.md section 7); cheap enough to poll once a second. */
final class RuntimeInfo {
  // Linux x86-64 and the usual arm64 kernels use 4 KiB pages; Java has no supported call for it.
  private static final long PAGE_SIZE = 4096;

  private RuntimeInfo() {}

  static String render(Config cfg, IntSupplier sessions) {
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    long gcCount = 0;
    long gcMillis = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      gcCount += Math.max(0, gc.getCollectionCount());
      gcMillis += Math.max(0, gc.getCollectionTime());
    }
    Json out = new Json(384).beginObject()
        .name("runtime").beginObject().field("name", "java").field("version", Runtime.version().toString()).endObject()
        .field("pid", ProcessHandle.current().pid())
        .field("uptime_ms", ManagementFactory.getRuntimeMXBean().getUptime())
        .field("parallelism", Runtime.getRuntime().availableProcessors())
        .field("heap_used_bytes", heap.getUsed())
        .field("heap_total_bytes", heap.getCommitted())
        .field("rss_bytes", rssBytes())
        .field("gc_count", gcCount)
        .field("gc_pause_total_ms", gcMillis)
        .name("gc_pauses_recent");
    GcPauses.JVM.write(out)
        .field("threads", procThreads())
        .name("goroutines").nullValue() // no virtual threads on JDK 17
        .name("mcp").beginObject()
        .field("stateless", cfg.stateless())
        .field("json_response", cfg.jsonResponse())
        .name("sessions");
    if (cfg.stateless()) {
      out.nullValue();
    } else {
      out.value(sessions.getAsInt());
    }
    return out.endObject().endObject().toString();
  }

  static long rssBytes() {
    try {
      String[] fields = Files.readString(Path.of("/proc/self/statm")).trim().split("\\s+");
      return Long.parseLong(fields[1]) * PAGE_SIZE;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  static int procThreads() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Threads:")) {
          return Integer.parseInt(line.substring("Threads:".length()).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through
    }
    return -1;
  }
}
