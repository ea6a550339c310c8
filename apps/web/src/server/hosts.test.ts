import { describe, expect, it } from "vitest";
import { hostNameOf, refusedHost } from "./hosts";

const LOOPBACK = ["127.0.0.1", "localhost", "[::1]"];

describe("the host a request names", () => {
  it("is its Host header's name, lower-case, without the port; IPv6 keeps its brackets", () => {
    expect(hostNameOf("127.0.0.1:3000")).toBe("127.0.0.1");
    expect(hostNameOf("LocalHost")).toBe("localhost");
    expect(hostNameOf("[::1]:3000")).toBe("[::1]");
    expect(hostNameOf(" lab.example.org ")).toBe("lab.example.org");
    expect(hostNameOf("evil.example:3000")).toBe("evil.example");
  });

  it("passes when Host, and X-Forwarded-Host if sent, are allowed; names the header otherwise", () => {
    expect(refusedHost(new Headers({ host: "127.0.0.1:3000" }), LOOPBACK)).toBeNull();
    expect(refusedHost(new Headers({ host: "[::1]:3000" }), LOOPBACK)).toBeNull();
    expect(refusedHost(new Headers({ host: "rebound.example:3000" }), LOOPBACK)).toEqual({
      field: "host",
      name: "rebound.example",
    });
    // A page that rebinds its name can also send a forwarded host: it does not stand in for Host.
    expect(
      refusedHost(new Headers({ host: "rebound.example:3000", "x-forwarded-host": "127.0.0.1" }), LOOPBACK),
    ).toMatchObject({ field: "host" });
    expect(
      refusedHost(new Headers({ host: "127.0.0.1:3000", "x-forwarded-host": "evil.example" }), LOOPBACK),
    ).toEqual({ field: "x-forwarded-host", name: "evil.example" });
    expect(refusedHost(new Headers({}), LOOPBACK)).toMatchObject({ field: "host", name: "" });
  });
});
