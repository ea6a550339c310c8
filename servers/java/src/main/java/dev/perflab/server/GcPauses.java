package dev.perflab.server;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The newest GC pauses as [n, ms], n numbering every collection from 1 (CONTRACT.md section 7,
 * gc_pauses_recent). The MXBeans only sum their times, so each collection's own duration comes
 * from the notification the JVM sends after it.
 */
final class GcPauses {
  static final int KEPT = 64;
  /** The process's collectors, listened to from class load. */
  static final GcPauses JVM = listen(new GcPauses());

  private final long[] millis = new long[KEPT];
  private long count;

  /** Loads the class at start, so n counts from the server's start rather than the first read. */
  static void install() {}

  synchronized void add(long ms) {
    millis[(int) (count % KEPT)] = ms;
    count++;
  }

  /** Writes the list, oldest first, as the value of the name just written. */
  synchronized Json write(Json out) {
    out.beginArray();
    for (long n = Math.max(1, count - KEPT + 1); n <= count; n++) {
      out.beginArray().value(n).value(millis[(int) ((n - 1) % KEPT)]).endArray();
    }
    return out.endArray();
  }

  private static GcPauses listen(GcPauses pauses) {
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(
            (notification, handback) -> {
              if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                  notification.getType())) {
                CompositeData data = (CompositeData) notification.getUserData();
                pauses.add(GarbageCollectionNotificationInfo.from(data).getGcInfo().getDuration());
              }
            },
            null,
            null);
      }
    }
    return pauses;
  }
}
