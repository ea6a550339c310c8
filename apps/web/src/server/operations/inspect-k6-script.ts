import { execFile } from "node:child_process";
import { access, copyFile, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { defaultServersDir } from "@perflab/catalog";
import { scenarioCatalog, USER_SCRIPT_FILE } from "@perflab/contracts";
import { env } from "../../env";
import { AppError } from "../errors";

const repoRoot = path.dirname(defaultServersDir);
const scenariosDir = () => env.PERFLAB_SCENARIOS_DIR ?? path.join(repoRoot, "packages/scenarios/k6");
const k6Bin = () => env.PERFLAB_K6_BIN ?? path.join(repoRoot, ".perflab/bin/k6");
const INSPECT_TIMEOUT_MS = 20_000;

/**
 * Checks a script as the worker will run it: `k6 inspect` of the k6-script scenario's wrapper with
 * the script beside it, using the lab's k6. A script k6 refuses is a 422 naming the line.
 */
export async function inspectK6Script(source: string): Promise<void> {
  const bin = k6Bin();
  await access(bin).catch(() => {
    throw new AppError("unavailable", `The lab's k6 (${bin}) is not installed where the web app runs.`);
  });
  const dir = await mkdtemp(path.join(tmpdir(), "perflab-inspect-"));
  try {
    const from = scenariosDir();
    for (const name of (await readdir(from)).filter((n) => n.endsWith(".js"))) {
      await copyFile(path.join(from, name), path.join(dir, name));
    }
    await writeFile(path.join(dir, USER_SCRIPT_FILE), source);
    const wrapper = path.join(dir, scenarioCatalog["k6-script"].script);
    // Only what k6 needs: the script sees none of the web app's environment.
    await promisify(execFile)(bin, ["inspect", wrapper], {
      cwd: dir,
      env: { HOME: dir, K6_NO_USAGE_REPORT: "true" } as Partial<NodeJS.ProcessEnv> as NodeJS.ProcessEnv,
      timeout: INSPECT_TIMEOUT_MS,
      maxBuffer: 1024 * 1024,
    }).catch((error: { stderr?: string; killed?: boolean }) => {
      const message = error.killed
        ? `k6 inspect did not finish within ${INSPECT_TIMEOUT_MS / 1000} s (a loop in the init code?)`
        : k6ErrorOf(error.stderr ?? "", dir);
      throw new AppError("invalid", "k6 refused the script.", [{ field: "source", message }]);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * k6's error, led by the script's line when k6 names one ("line 3: Unexpected token ;"), with the
 * temporary paths shortened to the file names.
 */
export function k6ErrorOf(stderr: string, dir: string): string {
  const logged = /level=error msg="((?:[^"\\]|\\.)*)"/.exec(stderr)?.[1];
  const raw = (logged ? JSON.parse(`"${logged}"`) : stderr.trim()) as string;
  const text = raw.replaceAll(`file://${dir}/`, "").replaceAll(`${dir}/`, "");
  const line =
    new RegExp(`${USER_SCRIPT_FILE}: Line (\\d+):(\\d+)`).exec(text) ??
    new RegExp(`${USER_SCRIPT_FILE}:(\\d+):(\\d+)`).exec(text);
  const first = (text.split("\n")[0] ?? text).slice(0, 500);
  return line ? `line ${line[1]}, column ${line[2]}: ${first}` : first;
}
