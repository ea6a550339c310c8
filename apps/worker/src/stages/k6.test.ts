import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TK6OutputLine } from "@perflab/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalK6Runner } from "./k6.ts";

describe("the local k6 runner's output", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "perflab-k6-test-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A stand-in for k6 that writes `output` into perflab's pipe, then runs `then`. */
  async function fakeK6(name: string, output: string, then: string) {
    const bin = path.join(dir, name);
    await writeFile(
      bin,
      [
        "#!/bin/sh",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
        'for a in "$@"; do case "$a" in perflab=*) out="${a#perflab=}";; esac; done',
        `printf '%s' '${output}' > "$out"`,
        then,
        "",
      ].join("\n"),
    );
    await chmod(bin, 0o755);
    return bin;
  }

  async function runToEnd(bin: string) {
    const workDir = await mkdtemp(path.join(dir, "work-"));
    const run = await createLocalK6Runner(bin).run({
      script: path.join(dir, "script.js"),
      workDir,
      env: {},
      timeoutMs: 30_000,
      cell: { id: "c", runId: "r", owner: "o" },
    });
    const lines: TK6OutputLine[] = [];
    for await (const line of run.lines) lines.push(line);
    return { lines, result: await run.done, skipped: run.skippedLines() };
  }

  it("skips a last line cut off by a SIGKILL mid-write, so k6's own exit is what the cell reports", async () => {
    const bin = await fakeK6(
      "killed-mid-write",
      '{"type":"start","t":1700000000000,"k6":"v1"}\n{"type":"interval","t":1,"groups":[{"phase":"mea',
      "kill -9 $$",
    );
    const { lines, result, skipped } = await runToEnd(bin);
    expect(lines).toEqual([{ type: "start", t: 1_700_000_000_000, k6: "v1" }]);
    expect([result.exitCode, result.signal]).toEqual([null, "SIGKILL"]);
    expect(skipped.count).toBe(1);
    expect(skipped.samples[0]).toMatch(/"phase":"mea \(Unterminated string/);
  });

  it("still fails the read on a JSON line that is not perflab's output", async () => {
    const bin = await fakeK6("wrong-shape", '{"type":"start"}\n', "exit 0");
    await expect(runToEnd(bin)).rejects.toThrow('unexpected k6 output line: {"type":"start"}');
  });
});
