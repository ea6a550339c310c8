package dev.perflab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class GcPausesTest {
  private static final Pattern PAUSE = Pattern.compile("\\[(\\d+),(\\d+)\\]");

  private static List<long[]> pauses(GcPauses pauses) {
    Matcher m = PAUSE.matcher(pauses.write(new Json()).toString());
    List<long[]> out = new ArrayList<>();
    while (m.find()) {
      out.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
    }
    return out;
  }

  @Test
  void keepsTheNewest64NumberedFrom1OldestFirst() {
    GcPauses ring = new GcPauses();
    assertEquals("[]", ring.write(new Json()).toString());
    for (int i = 1; i <= GcPauses.KEPT + 2; i++) {
      ring.add(i * 10L);
    }
    List<long[]> listed = pauses(ring);
    assertEquals(GcPauses.KEPT, listed.size());
    assertEquals(3, listed.get(0)[0]);
    assertEquals(30, listed.get(0)[1]);
    assertEquals(GcPauses.KEPT + 2, listed.get(GcPauses.KEPT - 1)[0]);
  }

  @Test
  void listsAForcedFullCollectionWithAPauseWithinTheTotal() throws InterruptedException {
    GcPauses.install();
    long lastSeen = last(pauses(GcPauses.JVM));
    long totalBefore = totalMillis();
    // Live data for the full collection to mark and move, so its pause lasts a millisecond or more.
    List<long[]> live = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) {
      live.add(new long[16]);
    }
    System.gc();
    List<long[]> fresh = new ArrayList<>();
    for (int wait = 0; wait < 100 && fresh.isEmpty(); wait++) {
      Thread.sleep(50); // notifications arrive on the JVM's service thread
      for (long[] p : pauses(GcPauses.JVM)) {
        if (p[0] > lastSeen) {
          fresh.add(p);
        }
      }
    }
    assertTrue(live.size() > 0);
    assertTrue(!fresh.isEmpty(), "no pause listed after System.gc()");
    long longest = fresh.stream().mapToLong(p -> p[1]).max().orElse(0);
    assertTrue(longest > 0, "longest pause " + longest + " ms");
    assertTrue(longest <= totalMillis() - totalBefore, "longest pause within the MXBeans' total");
  }

  private static long last(List<long[]> pauses) {
    return pauses.isEmpty() ? 0 : pauses.get(pauses.size() - 1)[0];
  }

  private static long totalMillis() {
    long total = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }
}
