/** The images built from sources: a server's, fixtures' or k6's folder, the backends and the app image. */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { bases, DEBIAN_BASE, debianBase, localBuildArgs } from "./bases.ts";
import { CHECKOUT_LABEL, hashTagged, INPUTS_LABEL, once, output, q, root, sh } from "./engine.ts";
import { recordStages } from "./stages.ts";

/** Workspace servers (node, bun) build from the repository root, streamed without what no image needs. */
const rootContext = () =>
  `tar -c ${[
    "./.git",
    "./.perflab",
    "./node_modules",
    "./*/*/node_modules",
    "./servers/*/target",
    "./servers/*/.venv",
    "./servers/*/bin",
    "./apps/web/.next",
    "./coverage",
  ]
    .map((e) => `--exclude=${q(e)}`)
    .join(" ")} -C ${q(root)} .`;

/**
 * What an image is built on: its base build args and each base's content id. The tag hashes only the
 * image's own sources, so this label is what rebuilds it (same tag) when a base changed under it: a
 * new toolchain version, or a cache-carrying base rebuilt with new crates or artifacts.
 */
function baseInputs(buildArgs: string[]): string {
  const bases = buildArgs.map((flag) => {
    const image = flag.slice(flag.indexOf("=") + 1);
    const inspect = spawnSync("docker", ["image", "inspect", "-f", "{{.Id}}", image], { encoding: "utf8" });
    return `${flag}@${inspect.status === 0 ? inspect.stdout.trim() : "missing"}`;
  });
  return createHash("sha256").update(bases.join("\n")).digest("hex").slice(0, 16);
}

export async function imageFromDir(dir: string, tag: string, logName: string, what = logName): Promise<void> {
  const dockerfile = path.join(dir, "Dockerfile");
  const buildArgs = await localBuildArgs(dockerfile, what);
  const inputs = baseInputs(buildArgs);
  const label = `--label ${INPUTS_LABEL}=${inputs} --label ${q(`${CHECKOUT_LABEL}=${root}`)}`;
  hashTagged.add(tag);
  const fromRoot = /Build context: the repository root/i.test(await readFile(dockerfile, "utf8"));
  await once(
    tag,
    logName,
    async () => {
      await sh(
        fromRoot
          ? `${rootContext()} | docker build --network host ${buildArgs.join(" ")} ${label} -f ${q(path.relative(root, dockerfile))} -t ${tag} -`
          : `docker build --network host ${buildArgs.join(" ")} ${label} -t ${tag} ${q(dir)}`,
        logName,
      );
      recordStages(tag, logName);
    },
    inputs,
  );
}

/** Postgres and Redis from Debian's packages: compose's lab database and queue, a remote engine's fixtures. */
export async function backendImages(): Promise<void> {
  await debianBase();
  await once("perflab/postgres:15", "postgres", () =>
    sh(
      `tar -c -C ${q(path.join(root, "docker"))} postgres.Dockerfile postgres-entrypoint.sh | docker build --network host -f postgres.Dockerfile --build-arg BASE_IMAGE=${DEBIAN_BASE} -t perflab/postgres:15 -`,
      "postgres",
    ),
  );
  await once("perflab/redis:7", "redis", () =>
    sh(
      `tar -c -C ${q(path.join(root, "docker"))} redis.Dockerfile | docker build --network host -f redis.Dockerfile --build-arg BASE_IMAGE=${DEBIAN_BASE} -t perflab/redis:7 -`,
      "redis",
    ),
  );
}

/**
 * One image holds the installed workspace and the built web app; compose runs it as web, worker and
 * migrate. The context is the repository streamed through tar, minus what no service needs.
 */
export async function appImages(): Promise<void> {
  await debianBase();
  // The workspace was installed by the host's node, so the app image runs that node.
  const node = await bases[1]!.build(`node:${process.versions.node.split(".")[0]}`);
  await backendImages();
  if (!existsSync(path.join(root, "apps/web/.next/BUILD_ID"))) {
    throw new Error("the web app is not built: run `pnpm build` (or scripts/setup.sh) before --apps");
  }
  const excludes = [
    "./.git",
    "./.perflab/work",
    "./.perflab/debian-root",
    "./.perflab/docker-build",
    "./.perflab/build",
    // Build output only: every server's manifest, Dockerfile and sources stay, so compose's web and
    // worker list all of them and the worker computes the same image tags as this script.
    "./servers/*/target",
    "./apps/web/.next/cache",
    "./coverage",
    "./.perflab/*.log",
    "./.perflab/pg",
    "./.perflab/data",
    "./.perflab/*.out",
    "./**/.turbo",
    "./.perflab/redis",
  ].map((e) => `--exclude=${q(e)}`);
  await once(
    APP_IMAGE,
    "app",
    () =>
      sh(
        `tar -c ${excludes.join(" ")} -C ${q(root)} . | docker build --network host -f docker/app.Dockerfile --build-arg NODE_IMAGE=${node} --build-arg BASE_IMAGE=${DEBIAN_BASE} --label ${INPUTS_LABEL}=${appInputs(node)} -t ${APP_IMAGE} -`,
        "app",
      ),
    appInputs(node),
  );
}

const APP_IMAGE = "perflab/app:local";

/**
 * What the app image is made of, as one hash: every file git tracks or would track (contents, so
 * uncommitted edits count), the web build's id (.next is restored from turbo's cache when its sources
 * did not change, id included) and the base images. node_modules, Prisma's generated client, the
 * packages' dist/ and k6 are derived from those files, so they are not read.
 */
let appInputsMemo: string | undefined;
function appInputs(nodeImage: string): string {
  if (appInputsMemo) return appInputsMemo;
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  const hash = createHash("sha256");
  for (const file of listed.stdout.split("\0").filter(Boolean).sort()) {
    const full = path.join(root, file);
    if (!existsSync(full)) continue; // deleted but not yet committed
    hash.update(file).update("\0").update(readFileSync(full)).update("\0");
  }
  hash.update(readFileSync(path.join(root, "apps/web/.next/BUILD_ID")));
  for (const base of [nodeImage, DEBIAN_BASE])
    hash.update(output("docker", ["image", "inspect", "-f", "{{.Id}}", base]));
  appInputsMemo = hash.digest("hex").slice(0, 16);
  return appInputsMemo;
}
