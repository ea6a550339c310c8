import type { CliFlag } from "@perflab/contracts";

/** A mistake in the command line: printed with the usage, exit code 2. */
export class UsageError extends Error {}

export type Env = Record<string, string | undefined>;

/** A flag's value on the command line, if given. */
export type Str = (name: string) => string | undefined;

export const defined = <T extends Record<string, unknown>>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** "10, 50 100" → ["10", "50", "100"]: the API judges each value and names the one it refuses. */
export const list = (text: string) => text.split(/[\s,;]+/).filter(Boolean);

/** A flag's number as the API takes it (the API names a bad one; this only catches non-numbers early). */
export function num(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n))
    throw new UsageError(`--${flag} must be a number, got "${value}"`);
  return n;
}

/** A scenario flag's value as its kind reads: text as given, a number, or JSON. */
export function readFlag(flag: CliFlag, text: string): unknown {
  if (flag.value === "number") return num(flag.flag, text);
  if (flag.value === "text") return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--${flag.flag} must be JSON, got ${text}`);
  }
}

/** Git fields from the flags, else from GitHub Actions' environment, so a workflow needs none. */
export function gitFields(values: Record<string, unknown>, env: Env) {
  const pr = /^refs\/pull\/(\d+)\//.exec(env.GITHUB_REF ?? "")?.[1];
  const pick = (flag: string, fallback: string | undefined) =>
    (values[flag] as string | undefined) ?? (fallback || undefined);
  return {
    repo: pick("git-repo", env.GITHUB_REPOSITORY),
    branch: pick("git-branch", env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME),
    commit: pick("git-commit", env.GITHUB_SHA),
    pr: pick("git-pr", pr),
  };
}

/** `--max-rounds` (and `--max-minutes` with it) make the rounds adaptive: `--rounds` is then the minimum. */
export function adaptiveRounds(str: Str) {
  const maxRounds = num("max-rounds", str("max-rounds"));
  const maxMinutes = num("max-minutes", str("max-minutes"));
  if (maxRounds === undefined && maxMinutes !== undefined)
    throw new UsageError("--max-minutes bounds adaptive rounds: give it with --max-rounds");
  return maxRounds === undefined ? undefined : { maxRounds, ...defined({ maxMinutes }) };
}

/**
 * The tolerance judges the verdict printed at the end; without a baseline, or without waiting for
 * the end, there is none, and a CI job should not believe it set one.
 */
export function checkJudged(values: Record<string, unknown>, tolerance: number | undefined) {
  if (tolerance === undefined) return;
  if (values.baseline === undefined)
    throw new UsageError("--tolerance needs --baseline <run id>: it is the verdict's against that run");
  if (values["no-wait"] === true)
    throw new UsageError(
      "--tolerance with --no-wait judges nothing: give it to perflab verdict <run id> once the run ends",
    );
}
