import { scenarioOptions } from "./scenario-flags.ts";

const common = {
  url: { type: "string" },
  token: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

const git = {
  "git-repo": { type: "string" },
  "git-branch": { type: "string" },
  "git-commit": { type: "string" },
  "git-pr": { type: "string" },
} as const;

/** What was (or is to be) measured, and against what: the flags `run` and `upload` share. */
const measured = {
  vus: { type: "string" },
  rate: { type: "string" },
  "max-vus": { type: "string" },
  duration: { type: "string" },
  warmup: { type: "string" },
  driver: { type: "string" },
  name: { type: "string" },
  baseline: { type: "string" },
  tolerance: { type: "string" },
} as const;

/** How many rounds, fixed or adaptive: the flags `run` and `study` share (flag-values' adaptiveRounds). */
const rounds = {
  rounds: { type: "string" },
  "max-rounds": { type: "string" },
  "max-minutes": { type: "string" },
} as const;

/** Each command's flags, as node:util's parseArgs takes them. */
export const options = {
  run: {
    ...common,
    ...git,
    ...measured,
    ...scenarioOptions("run"),
    server: { type: "string", multiple: true },
    scenario: { type: "string" },
    ...rounds,
    cooldown: { type: "string" },
    "timeout-ms": { type: "string" },
    cpus: { type: "string" },
    "memory-mb": { type: "string" },
    "no-wait": { type: "boolean", default: false },
  },
  upload: {
    ...common,
    ...git,
    ...measured,
    ...scenarioOptions("upload"),
    server: { type: "string" },
    summary: { type: "string" },
    scenario: { type: "string" },
    format: { type: "string" },
  },
  study: {
    ...common,
    list: { type: "boolean", default: false },
    quick: { type: "boolean", default: false },
    ...rounds,
    server: { type: "string", multiple: true },
    with: { type: "string", multiple: true },
    driver: { type: "string" },
    name: { type: "string" },
    baseline: { type: "string" },
    tolerance: { type: "string" },
    "no-wait": { type: "boolean", default: false },
  },
  verdict: { ...common, baseline: { type: "string" }, tolerance: { type: "string" } },
  export: { ...common, report: { type: "boolean", default: false } },
  report: {
    ...common,
    title: { type: "string" },
    description: { type: "string" },
    public: { type: "boolean", default: false },
  },
  script: { ...common, name: { type: "string" } },
  servers: { ...common },
} as const;

export type CommandName = keyof typeof options;
export const commandNames = Object.keys(options) as CommandName[];
