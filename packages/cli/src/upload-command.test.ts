import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, open, readFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { run } from "./main.ts";

const BIN = fileURLToPath(new URL("../bin/perflab.mjs", import.meta.url));
const MIB = 2 ** 20;
/** Larger than the command's whole memory may grow: read whole, the file alone would pass it. */
const FILE_BYTES = 768 * MIB;
const RSS_LIMIT = 320 * MIB;

/** The largest RSS a process has had (Linux's VmHWM), in bytes. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

/** A lab that takes the upload, noting what came and how large the sender had grown once it all came. */
function fakeLab(senderPid: () => number | undefined) {
  const seen = { bytes: 0, headers: {} as IncomingMessage["headers"], senderPeak: 0 };
  const lab = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method === "GET") {
      response.writeHead(200, { "content-type": "application/json" });
      return response.end(JSON.stringify({ run: { id: "r1", status: "succeeded" } }));
    }
    seen.headers = request.headers;
    request.on("data", (piece: Buffer) => {
      seen.bytes += piece.length;
    });
    request.on("end", async () => {
      seen.senderPeak = await peakRss(senderPid() ?? 0);
      response.writeHead(202, { "content-type": "application/json" });
      response.end(JSON.stringify({ runId: "r1", url: "http://lab/runs/r1" }));
    });
  });
  return { lab, seen };
}

describe("perflab upload", () => {
  it.runIf(existsSync("/proc/self/status"))(
    "streams a file larger than its own memory from disk, with its length, and waits for the run",
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), "perflab-cli-upload-"));
      const file = path.join(dir, "out.json.gz");
      // Sparse: gzip's magic bytes, then zeros the disk does not hold.
      const handle = await open(file, "w");
      await handle.write(Buffer.from([0x1f, 0x8b]));
      await handle.truncate(FILE_BYTES);
      await handle.close();
      let pid: number | undefined;
      const { lab, seen } = fakeLab(() => pid);
      await new Promise<void>((resolve) => lab.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(lab.address() as AddressInfo).port}`;
      try {
        const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
          (resolve) => {
            const child = execFile(
              process.execPath,
              [BIN, "upload", file, "--server", "go", "--duration", "30", "--url", url],
              { env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), PERFLAB_RETRY: "0" } },
              (error, stdout, stderr) =>
                resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
            );
            pid = child.pid;
          },
        );
        expect(result.stderr).toBe("");
        expect(result.stdout).toBe("uploaded run r1: http://lab/runs/r1\n");
        expect(seen.bytes).toBe(FILE_BYTES);
        expect(seen.headers).toMatchObject({
          "content-length": String(FILE_BYTES),
          "content-encoding": "gzip",
        });
        expect(seen.senderPeak).toBeGreaterThan(0);
        expect(seen.senderPeak).toBeLessThan(RSS_LIMIT);
      } finally {
        lab.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it("says a lab that redirects the upload is not at --url, without asking again", async () => {
    const lab = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      response.writeHead(308, { location: "https://lab.example/api/v1/uploads" });
      response.end();
    });
    await new Promise<void>((resolve) => lab.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(lab.address() as AddressInfo).port}`;
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    try {
      const argv = ["upload", BIN, "--server", "go", "--duration", "30", "--url", url];
      expect(await run(argv, io, { PERFLAB_RETRY: "30" })).toBe(2);
    } finally {
      lab.close();
    }
    expect(lines).toEqual([
      `perflab: perflab at ${url} answered POST /api/v1/uploads?server=go&durationSec=30 with a redirect: give --url as the lab's own address`,
    ]);
  });
});
