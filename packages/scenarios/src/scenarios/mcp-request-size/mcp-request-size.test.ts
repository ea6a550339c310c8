import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { mcpRequestSize } from "./index.ts";
import { MAX_MESSAGE_BYTES, requestSizeOf, ZMcpRequestSizeParams } from "./params.ts";
import { mcpRequestSizeEnv, mcpRequestSizeFiles } from "./run.ts";

const k6File = (file: string) => readFileSync(path.resolve(import.meta.dirname, "../../../k6", file), "utf8");
const script = `${k6File("mcp-request-size.js")}\n${k6File("load.js")}`;
const load = { target: "http://127.0.0.1:8080", vus: 10, durationSec: 20, warmupSec: 5 };
const errors = (params: unknown) =>
  ZMcpRequestSizeParams.safeParse(params).error?.issues.map((i) => [i.path.join("."), i.message]);

describe("the mcp-request-size scenario", () => {
  it("gives k6 the load in its environment and echo's arguments in a file the script opens", () => {
    expect(mcpRequestSizeEnv({ ...load, messageBytes: 1024 })).toEqual({
      TARGET: "http://127.0.0.1:8080",
      MCP_PATH: "/mcp",
      VUS: "10",
      DURATION: "20",
      WARMUP: "5",
    });
    const files = mcpRequestSizeFiles({ messageBytes: 5, padToBytes: 2048 });
    expect(files).toEqual({ ARGS_FILE: '{"message":"xxxxx","pad_to_bytes":2048}' });
    for (const name of [...Object.keys(mcpRequestSizeEnv(load)), ...Object.keys(files)]) {
      expect(script, name).toMatch(new RegExp(`__ENV\\.${name}\\b|(positiveInt|nonNegativeInt)\\("${name}"`));
    }
  });

  it("sends a message of exactly the bytes asked for, 1 MiB included, which no environment variable holds", () => {
    const text = mcpRequestSizeFiles({ messageBytes: MAX_MESSAGE_BYTES }).ARGS_FILE!;
    const args = JSON.parse(text) as { message: string };
    expect(Buffer.byteLength(args.message)).toBe(1024 * 1024);
    // {"message":"…"} is 14 bytes around the message: nothing is escaped.
    expect(Buffer.byteLength(text)).toBe(1024 * 1024 + 14);
  });

  it("fills in 1 KiB, leaves pad_to_bytes out at 0, and refuses sizes echo refuses, naming the field", () => {
    expect(ZMcpRequestSizeParams.parse({})).toEqual({ messageBytes: 1024 });
    expect(ZMcpRequestSizeParams.parse({ messageBytes: 10_240, padToBytes: 0 })).toEqual({
      messageBytes: 10_240,
    });
    expect(errors({ messageBytes: 0 })).toEqual([["messageBytes", "must be at least 1"]]);
    expect(errors({ messageBytes: MAX_MESSAGE_BYTES + 1 })).toEqual([
      ["messageBytes", "must be at most 1048576 (1 MiB)"],
    ]);
    expect(errors({ messageBytes: 1.5 })).toEqual([["messageBytes", "must be a whole number of bytes"]]);
    expect(errors({ messageBytes: "1024" })).toEqual([["messageBytes", "must be a whole number of bytes"]]);
    expect(errors({ padToBytes: -1 })).toEqual([["padToBytes", "must be at least 0"]]);
    expect(errors({ messageBytes: 1024, tool: "echo" })?.[0]?.[0]).toBe("");
  });

  it("names its workloads by size and reads an upload's sizes from its arguments", () => {
    const name = (params: object) => mcpRequestSize.workload!(ZMcpRequestSizeParams.parse(params));
    expect(name({ messageBytes: 1_048_576 })).toBe("echo (message 1048576 B)");
    expect(name({ messageBytes: 5, padToBytes: 1024 })).toBe("echo (message 5 B, pad_to_bytes 1024)");
    expect(requestSizeOf({ message: "€€", pad_to_bytes: 10 })).toEqual({ messageBytes: 6, padToBytes: 10 });
    expect(requestSizeOf(undefined)).toEqual({});
    expect(mcpRequestSize.needsFixtures(ZMcpRequestSizeParams.parse({}))).toBe(false);
  });
});
