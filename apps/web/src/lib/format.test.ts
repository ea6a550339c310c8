import { describe, expect, it } from "vitest";
import { formatGib, formatSecond } from "./format";

describe("formatSecond", () => {
  it("prints seconds, grouped, on axes up to five minutes", () => {
    expect(formatSecond(45, 60)).toBe("45 s");
    expect(formatSecond(-1, 60)).toBe("-1 s");
    expect(formatSecond(240, 300)).toBe("240 s");
  });

  it("prints m:ss on axes of several minutes", () => {
    expect(formatSecond(750, 1200)).toBe("12:30 min");
    expect(formatSecond(5, 1200)).toBe("0:05 min");
    expect(formatSecond(-1, 1200)).toBe("-0:01 min");
  });

  it("prints h:mm on axes past an hour: a day-long soak reads in hours, not 43,200 s", () => {
    expect(formatSecond(14_400, 86_400)).toBe("4:00 h");
    expect(formatSecond(43_200, 86_400)).toBe("12:00 h");
    expect(formatSecond(5_430, 7_200)).toBe("1:31 h");
  });
});

describe("formatGib", () => {
  it("prints a machine's memory in GiB, as the comparison's machine labels do", () => {
    expect(formatGib(24 * 2 ** 30)).toBe("24.0 GiB");
    expect(formatGib(null)).toBe("—");
  });
});
