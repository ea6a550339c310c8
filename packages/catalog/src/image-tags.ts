import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";
import { buildInputFiles } from "./build-inputs.ts";
import type { CatalogEntry } from "./server-catalog.ts";

/** Build output and tool state, never an image's source: hashing them would change tags on every build. */
const IGNORED = [
  "**/node_modules/**",
  "**/.turbo/**",
  "**/*.tsbuildinfo",
  "**/target/**",
  "bin/**",
  "dist/**",
  "**/.venv/**",
  "**/__pycache__/**",
];

/**
 * The repository files a root-context Dockerfile copies (its `COPY` sources other than `--from`
 * stages), relative to the repository root: for the Node and Bun images that is the lock file, the
 * workspace's root configuration and the shared contract folder, none of which is in the server's
 * own folder.
 */
async function rootContextFiles(dockerfile: string, root: string): Promise<string[]> {
  const patterns: string[] = [];
  for (const line of dockerfile.split("\n")) {
    const match = /^\s*COPY\s+(.*)$/i.exec(line);
    if (!match || /--from=/.test(match[1]!)) continue;
    const args = match[1]!.split(/\s+/).filter((a) => a && !a.startsWith("--"));
    for (const source of args.slice(0, -1)) {
      const clean = source.replace(/\/+$/, "");
      patterns.push(clean, `${clean}/**`);
    }
  }
  if (patterns.length === 0) return [];
  return glob(patterns, { cwd: root, ignore: IGNORED.map((p) => `**/${p}`), dot: true, onlyFiles: true });
}

/**
 * The manifest as the image depends on it: variants only change how a container starts, and the
 * folder's own test command is not in the image.
 */
async function manifestForImage(dir: string): Promise<string> {
  const text = await readFile(path.join(dir, "perflab.json"), "utf8");
  try {
    const { variants: _variants, test: _test, ...rest } = JSON.parse(text) as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return text;
  }
}

/**
 * Hash of what an image is built from: the server's build inputs (folders beside it too, as
 * buildInputFiles reads them), manifest and Docker files, and for a Dockerfile built from the
 * repository root, every repository file it copies.
 */
export async function sourceHash(folder: string, inputs: string[]): Promise<string> {
  const { dir, files } = await buildInputFiles(
    folder,
    [...inputs, "perflab.json", "Dockerfile", ".dockerignore"],
    {
      ignore: IGNORED,
      dot: true,
    },
  );
  const hash = createHash("sha256");
  for (const file of files)
    hash
      .update(file)
      .update("\0")
      .update(file === "perflab.json" ? await manifestForImage(dir) : await readFile(path.join(dir, file)));
  const dockerfile = await readFile(path.join(dir, "Dockerfile"), "utf8").catch(() => "");
  if (/Build context: the repository root/i.test(dockerfile)) {
    const root = path.resolve(dir, "../..");
    for (const file of [...new Set(await rootContextFiles(dockerfile, root))].sort())
      hash
        .update(`/${file}`)
        .update("\0")
        .update(await readFile(path.join(root, file)));
  }
  return hash.digest("hex").slice(0, 12);
}

/**
 * The image a server runs: the one its manifest registers (`image`), or else
 * `perflab/server-<name>:<hash of its sources>`, built from its Dockerfile, so a changed source is a
 * new image, never a stale one. A variant runs its server's image (only its environment differs).
 */
export async function serverImageTag(
  server: Pick<CatalogEntry, "name" | "dir" | "build"> & { base?: string; image?: string | undefined },
): Promise<string> {
  if (server.image) return server.image;
  return `perflab/server-${server.base ?? server.name}:${await sourceHash(server.dir, server.build.inputs)}`;
}

export async function fixturesImageTag(fixturesDir: string): Promise<string> {
  return `perflab/fixtures:${await sourceHash(fixturesDir, ["**/*.go", "go.mod", "go.sum"])}`;
}

/** perflab's k6 build (packages/k6-output/Dockerfile), for running the load generator in a container. */
export async function k6ImageTag(k6OutputDir: string): Promise<string> {
  return `perflab/k6:${await sourceHash(k6OutputDir, ["**/*.go", "go.mod", "go.sum"])}`;
}
