package dev.perflab.server;

/**
 * Writer of CONTRACT.md's canonical JSON: no whitespace, keys in the order they are written,
 * plain integers, and only the escapes the contract allows (control characters as lowercase-hex unicode escapes).
 */
final class Json {
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final StringBuilder out;
  // One flag is enough: after a name the value must not get a comma, after a value or a
  // closed container the next element must.
  private boolean needComma;

  Json() {
    this(64);
  }

  Json(int capacity) {
    out = new StringBuilder(capacity);
  }

  Json beginObject() {
    comma();
    out.append('{');
    needComma = false;
    return this;
  }

  Json endObject() {
    out.append('}');
    needComma = true;
    return this;
  }

  Json beginArray() {
    comma();
    out.append('[');
    needComma = false;
    return this;
  }

  Json endArray() {
    out.append(']');
    needComma = true;
    return this;
  }

  Json name(String name) {
    comma();
    quote(out, name);
    out.append(':');
    needComma = false;
    return this;
  }

  Json value(String s) {
    comma();
    quote(out, s);
    needComma = true;
    return this;
  }

  Json value(long n) {
    comma();
    out.append(n);
    needComma = true;
    return this;
  }

  Json value(boolean b) {
    comma();
    out.append(b);
    needComma = true;
    return this;
  }

  Json nullValue() {
    comma();
    out.append("null");
    needComma = true;
    return this;
  }

  /** Embeds text that is already JSON (a stored order entry) as it is. */
  Json raw(String json) {
    comma();
    out.append(json);
    needComma = true;
    return this;
  }

  Json field(String name, String value) {
    return name(name).value(value);
  }

  Json field(String name, long value) {
    return name(name).value(value);
  }

  Json field(String name, boolean value) {
    return name(name).value(value);
  }

  private void comma() {
    if (needComma) {
      out.append(',');
    }
  }

  @Override
  public String toString() {
    return out.toString();
  }

  static String quote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2);
    quote(sb, s);
    return sb.toString();
  }

  static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
