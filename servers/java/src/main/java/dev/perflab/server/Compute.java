package dev.perflab.server;

import java.util.Arrays;
import java.util.Comparator;

/** The pure, deterministic work of the CPU tools (CONTRACT.md sections 4.1, 4.2 and 4.4). */
final class Compute {
  static final String PAD_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  static final String[] CATEGORIES = {"books", "electronics", "garden", "grocery", "health", "home", "sports", "toys"};
  static final String[] REGIONS = {"apac", "emea", "latam", "na"};
  static final int TRANSFORM_SEED = 42;

  private Compute() {}

  /** Bytes of the UTF-8 encoding, counted without encoding a message of up to 1 MiB. */
  static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /** Appends alphabet bytes until the UTF-8 length is padTo; a longer message is never truncated. */
  static String padMessage(String message, int padTo) {
    return padMessage(message, utf8Length(message), padTo);
  }

  static String padMessage(String message, int utf8Length, int padTo) {
    int missing = padTo - utf8Length;
    if (missing <= 0) {
      return message;
    }
    StringBuilder sb = new StringBuilder(message.length() + missing);
    sb.append(message);
    while (missing >= PAD_ALPHABET.length()) {
      sb.append(PAD_ALPHABET);
      missing -= PAD_ALPHABET.length();
    }
    sb.append(PAD_ALPHABET, 0, missing);
    return sb.toString();
  }

  /** Deliberately the naive double recursion: the CPU workload every server runs identically. */
  static long fibonacci(int n) {
    return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
  }

  /** Marsaglia's 13/17/5 xorshift on 32 bits; outputs are unsigned values held in a long. */
  static final class XorShift32 {
    private int x;

    XorShift32(int seed) {
      x = seed;
    }

    long next() {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x & 0xFFFFFFFFL;
    }
  }

  private record Rec(int id, String category, int region, long amount, long quantity) {}

  private static final Comparator<Rec> ORDER = (a, b) -> {
    int c = a.category.compareTo(b.category); // ASCII, so UTF-16 order is byte order
    if (c != 0) {
      return c;
    }
    if (a.amount != b.amount) {
      return a.amount > b.amount ? -1 : 1;
    }
    return Integer.compare(a.id, b.id);
  };

  /** Generates, sorts, groups and aggregates size records; returns the canonical TEXT. */
  static String transformData(int size) {
    XorShift32 rng = new XorShift32(TRANSFORM_SEED);
    Rec[] records = new Rec[size];
    for (int i = 0; i < size; i++) {
      String category = CATEGORIES[(int) (rng.next() % 8)];
      int region = (int) (rng.next() % 4);
      long amount = rng.next() % 100000;
      long quantity = 1 + rng.next() % 20;
      records[i] = new Rec(i, category, region, amount, quantity);
    }
    Arrays.sort(records, ORDER);

    Json out = new Json(2048);
    out.beginObject().field("size", size).name("groups").beginArray();
    for (int start = 0; start < size; ) {
      int end = start;
      while (end < size && records[end].category.equals(records[start].category)) {
        end++;
      }
      int count = end - start;
      long totalAmount = 0;
      long totalQuantity = 0;
      long revenue = 0;
      long[] regions = new long[REGIONS.length];
      for (int i = start; i < end; i++) {
        Rec r = records[i];
        totalAmount += r.amount;
        totalQuantity += r.quantity;
        revenue += r.amount * r.quantity;
        regions[r.region]++;
      }
      out.beginObject()
          .field("category", records[start].category)
          .field("count", count)
          .field("total_amount_cents", totalAmount)
          .field("total_quantity", totalQuantity)
          .field("revenue_cents", revenue)
          .field("min_amount_cents", records[end - 1].amount)
          .field("max_amount_cents", records[start].amount)
          .field("mean_amount_cents", totalAmount / count)
          .field("p50_amount_cents", records[start + count / 2].amount)
          .name("top_ids").beginArray();
      for (int i = start; i < Math.min(end, start + 3); i++) {
        out.value(records[i].id);
      }
      out.endArray().name("regions").beginObject();
      for (int r = 0; r < REGIONS.length; r++) {
        out.field(REGIONS[r], regions[r]);
      }
      out.endObject().endObject();
      start = end;
    }
    return out.endArray().endObject().toString();
  }
}
