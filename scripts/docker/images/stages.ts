import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CHECKOUT_LABEL, hashTagged, logDir, removeImages, root } from "./engine.ts";

/**
 * The classic builder leaves each build stage but the last as an untagged image (the Go server's is
 * 0.9 GB with its module cache). They are the cache of the next build, so each is removed with the
 * tag it built once that tag is superseded: `.perflab/docker-build/build-stages.json` keeps them.
 */
const stagesFile = path.join(logDir, "build-stages.json");

function readStages(): Record<string, string[]> {
  try {
    return JSON.parse(readFileSync(stagesFile, "utf8")) as Record<string, string[]>;
  } catch {
    return {};
  }
}

function writeStages(stages: Record<string, string[]>): void {
  writeFileSync(stagesFile, `${JSON.stringify(stages, null, 2)}\n`);
}

/** The image each stage before the last ended with, read from a build's log. */
export function recordStages(tag: string, logName: string): void {
  const log = readFileSync(path.join(logDir, `${logName}.log`), "utf8").split("\n");
  const ids: string[] = [];
  let last: string | undefined;
  let froms = 0;
  for (const line of log) {
    if (/^Step \d+\/\d+ : FROM /i.test(line)) {
      if (froms++ > 0 && last) ids.push(last);
      last = undefined;
    }
    const id = /^ ---> ([0-9a-f]{12})$/.exec(line)?.[1];
    if (id) last = id;
  }
  const stages = readStages();
  // Rebuilt under the same tag (a new base): the stages of the build it replaced go with it.
  dropStages(stages, [tag], ids);
  stages[tag] = ids;
  writeStages(stages);
}

/**
 * Forgets the builds of `tags` and removes their stages, but none that another recorded build or
 * `keep` still uses. Returns how many were removed.
 */
function dropStages(stages: Record<string, string[]>, tags: string[], keep: string[] = []): number {
  const used = new Set([
    ...keep,
    ...Object.entries(stages)
      .filter(([tag]) => !tags.includes(tag))
      .flatMap(([, ids]) => ids),
  ]);
  const stale = new Set(tags.flatMap((tag) => stages[tag] ?? []).filter((id) => !used.has(id)));
  for (const tag of tags) delete stages[tag];
  return removeImages([...stale]).length;
}

export function pruneSupersededTags(): void {
  const removed: string[] = [];
  for (const current of hashTagged) {
    const repository = current.slice(0, current.lastIndexOf(":"));
    const listed = spawnSync(
      "docker",
      [
        "image",
        "ls",
        "--filter",
        `reference=${repository}`,
        "--filter",
        `label=${CHECKOUT_LABEL}=${root}`,
        "--format",
        "{{.Repository}}:{{.Tag}}",
      ],
      { encoding: "utf8" },
    );
    if (listed.status !== 0) continue;
    const stale = listed.stdout
      .split("\n")
      .map((line) => line.trim())
      .filter((tag) => tag && tag !== current && !tag.endsWith(":<none>") && !tag.endsWith(":latest"));
    removed.push(...removeImages(stale));
  }
  if (removed.length === 0) return;
  // Their build stages too, but none a kept image's build still uses.
  const stages = readStages();
  const stageCount = dropStages(stages, removed);
  writeStages(stages);
  console.log(
    `  removed superseded images: ${removed.join(", ")}` +
      (stageCount > 0 ? ` (and ${stageCount} of their build stages)` : ""),
  );
}
