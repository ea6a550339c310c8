import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PassThrough, type Readable, type Writable } from "node:stream";
import type { TK6OutputLine } from "@perflab/contracts";
import { extract } from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerK6Runner } from "./k6-docker.ts";
import { createLocalK6Runner } from "./k6-local.ts";

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

  it("writes the script's files beside the cell's other files and names each in its variable", async () => {
    // The stand-in copies what its variable names to a file the test reads after the run.
    const seen = path.join(dir, "seen-mix");
    const bin = await fakeK6("files", "", `printf '%s\\n' "$MIX_FILE" > ${seen}; cat "$MIX_FILE" >> ${seen}`);
    const workDir = await mkdtemp(path.join(dir, "work-"));
    const mix = JSON.stringify([{ tool: "echo", arguments: { message: "x".repeat(300 * 1024) } }]);
    const run = await createLocalK6Runner(bin).run({
      script: path.join(dir, "script.js"),
      workDir,
      env: { MIX_FILE: "ignored: the runner names the file" },
      files: { MIX_FILE: mix },
      timeoutMs: 30_000,
      cell: { id: "c", runId: "r", owner: "o" },
    });
    for await (const _ of run.lines);
    expect((await run.done).exitCode).toBe(0);
    const [file, ...content] = (await readFile(seen, "utf8")).split("\n");
    expect(file).toBe(path.join(workDir, "k6-mix-file.json"));
    expect(content.join("\n")).toBe(mix);
  });

  it("still fails the read on a JSON line that is not perflab's output", async () => {
    const bin = await fakeK6("wrong-shape", '{"type":"start"}\n', "exit 0");
    await expect(runToEnd(bin)).rejects.toThrow('unexpected k6 output line: {"type":"start"}');
  });
});

describe("the docker k6 runner when the engine stops answering", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "perflab-k6-engine-test-"));
    await writeFile(path.join(dir, "script.js"), "export default function () {}\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const never = () => new Promise<never>(() => undefined);

  /**
   * An engine that creates and starts k6's container, then never answers again: its wait, kill,
   * stats, archive and remove calls stay pending, and the attached output never ends.
   */
  function wedgedEngine() {
    const calls: string[] = [];
    const archives: Buffer[] = [];
    const created: { Env?: string[] }[] = [];
    const output = new PassThrough();
    const container = {
      id: "k6c0ffee",
      putArchive: async (archive: Buffer) => {
        archives.push(archive);
      },
      attach: async () => output,
      start: async () => undefined,
      wait: never,
      stats: never,
      getArchive: never,
      kill: (options: { signal: string }) => {
        calls.push(`kill ${options.signal}`);
        return never();
      },
      remove: () => {
        calls.push("remove");
        return never();
      },
    };
    const docker = {
      modem: {
        // No multiplexing headers in this stand-in: everything is stdout.
        demuxStream: (stream: Readable, stdout: Writable) => stream.on("data", (d) => stdout.write(d)),
      },
      getImage: () => ({ inspect: async () => ({ Id: "sha256:k6" }) }),
      createContainer: async (options: { Env?: string[] }) => {
        created.push(options);
        return container;
      },
    };
    const runner = createDockerK6Runner({
      docker: docker as never,
      image: "perflab/k6:test",
      instance: "i",
      exitTimeoutMs: 150,
      stopGraceMs: 150,
    });
    return { calls, archives, created, output, runner };
  }

  async function start(
    engine: ReturnType<typeof wedgedEngine>,
    timeoutMs: number,
    files?: Record<string, string>,
  ) {
    const run = await engine.runner.run({
      script: path.join(dir, "script.js"),
      workDir: dir,
      env: {},
      ...(files ? { files } : {}),
      timeoutMs,
      cell: { id: "c", runId: "r", owner: "o" },
    });
    engine.output.write('{"type":"start","t":1700000000000,"k6":"v1"}\n');
    const lines: TK6OutputLine[] = [];
    const read = (async () => {
      for await (const line of run.lines) lines.push(line);
    })();
    return { run, lines, read };
  }

  /** Resolves with the time taken, or rejects when `work` takes longer than `ms`. */
  async function within(work: Promise<unknown>, ms: number): Promise<number> {
    const began = Date.now();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      work,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
      }),
    ]).finally(() => clearTimeout(timer));
    return Date.now() - began;
  }

  it("settles k6's result and ends its lines after the timeout's kill goes unanswered", async () => {
    const engine = wedgedEngine();
    const { run, lines, read } = await start(engine, 100);
    await within(Promise.all([run.done, read]), 2_000);
    const result = await run.done;
    expect(lines).toEqual([{ type: "start", t: 1_700_000_000_000, k6: "v1" }]);
    expect([result.exitCode, result.signal, result.summary]).toEqual([null, null, null]);
    expect(result.logTail).toContain("k6 exceeded 100 ms and was killed");
    expect(result.logTail).toContain("the engine did not report k6's exit within 150 ms of its kill");
    expect(engine.calls).toEqual(["kill SIGKILL", "remove"]);
  });

  it("puts the script's files into the container beside the scripts and names each in its variable", async () => {
    const engine = wedgedEngine();
    const args = JSON.stringify({ message: "x".repeat(200 * 1024) });
    const { run, read } = await start(engine, 60_000, { ARGS_FILE: args });
    expect(engine.created[0]?.Env).toContain("ARGS_FILE=/work/k6-args-file.json");
    const entries = new Map<string, string>();
    const unpack = extract();
    const done = (async () => {
      for await (const entry of unpack) {
        const chunks: Buffer[] = [];
        for await (const chunk of entry) chunks.push(chunk as Buffer);
        entries.set(entry.header.name, Buffer.concat(chunks).toString("utf8"));
      }
    })();
    unpack.end(engine.archives[0]);
    await done;
    expect(entries.get("k6-args-file.json")).toBe(args);
    expect(entries.has("script.js")).toBe(true);
    run.kill(true);
    await within(Promise.all([run.done, read]), 2_000);
  });

  it("settles after a forced kill within the bound, whatever the engine does", async () => {
    const engine = wedgedEngine();
    const { run, read } = await start(engine, 60_000);
    run.kill(true);
    const took = await within(Promise.all([run.done, read]), 2_000);
    expect(took).toBeGreaterThanOrEqual(140);
    expect(engine.calls).toEqual(["kill SIGKILL", "remove"]);
  });

  it("forces a graceful stop (an abort) that the engine does not carry out, then settles", async () => {
    const engine = wedgedEngine();
    const { run, read } = await start(engine, 60_000);
    run.kill();
    await within(Promise.all([run.done, read]), 2_000);
    expect(engine.calls).toEqual(["kill SIGTERM", "kill SIGKILL", "remove"]);
    expect((await run.done).logTail).toContain("the container was given up");
  });
});
