import type { z } from "zod";

/**
 * The load of one cell, the same for every scenario: what the worker hands `k6Env` beside the
 * scenario's parameters. `mcpPath` is the server's MCP endpoint, for scenarios that speak MCP.
 */
export type K6Load = {
  target: string;
  mcpPath: string;
  vus?: number;
  rate?: number;
  maxVus?: number;
  durationSec: number;
  warmupSec: number;
  /** The matrix's client timeout per request, ms; k6's 60 s when absent. */
  timeoutMs?: number | undefined;
};

/** How a scenario's operations (ops/s, requests per op, open-model rates) are counted and said. */
export type ScenarioOperations = {
  /** What they are, for headings and tooltips: "MCP tool calls". */
  name: string;
  /** One of them in running text: "call" ("calls", "calls/s"). */
  word: string;
  /** What the operations' `tool` tag names: "the tool called", "the route". */
  tag: string;
  /** What a VU holds open, said in the open model's pool hint ("sessions"), if anything. */
  vuHolds?: string;
  /**
   * What an open-model rate starts, when one k6 iteration is not one operation: "session" for a
   * tool mix, whose every iteration is a session of several calls. `word` when absent.
   */
  rateWord?: string;
};

/** A select option of a run form field; its hint shows under the select while it is chosen. */
export type FormOption = { value: string; label: string; hint?: string };

/**
 * One field of the run form, declared by its scenario and rendered by the form. Its value is text;
 * `formParams` turns the visible fields into the scenario's parameters, which the schema judges.
 */
export type FormFieldSpec<Name extends string = string> = {
  /** The parameter it sets: its errors are those at `scenarios.N.params.<name>` and below. */
  name: Name;
  /** The control's element id (and label target); the parameter's name when absent. */
  id?: string;
  label: string;
  /** Its name in the preview's list of fields to fix; the label when absent. */
  listLabel?: string;
  /** Under the control (a chosen option's own hint wins). */
  hint?: string;
  /** Shown, and sent, only while another field of the scenario has this value. */
  showWhen?: { field: Name; is: string };
} & (
  | {
      kind: "select";
      options: readonly FormOption[];
      default: string;
      /** Left out of the parameters at its default, as the schema stores it. */
      omitDefault?: boolean;
    }
  /** A whole number typed as text; left out while blank. */
  | { kind: "whole-number"; placeholder: string }
  /** JSON typed in a text area, sent as text (the schema parses it); reset when `from` changes. */
  | { kind: "json"; rows: number; from: { field: Name; value: (source: string) => string } }
  /** JSON typed in a text area, sent as text (the schema parses it), starting from `initial`. */
  | { kind: "json"; rows: number; initial: string; from?: undefined }
  /**
   * One of the tools the selected servers share (a select), or any name (a text input) when the
   * servers list no tools; the first server's first tool to start with, else `default`.
   */
  | { kind: "server-tool"; default: string }
  /** A stored k6 script of the workspace, by id (a text input); `default` until one is typed. */
  | { kind: "stored-script"; placeholder: string; default: string }
);

/** The value a CLI flag carries: text as given, a number, or JSON. */
export type CliValue = "text" | "number" | "json";

/** One line of `perflab help <command>`: the flag as typed, and what it does (more lines after \n). */
export type CliHelp = { synopsis: string; text: string };

/** A flag of `perflab run` (and of `perflab upload` when it has an upload key). */
export type CliFlag<Name extends string = string> = {
  /** Without the dashes: "sessions-per-vu". */
  flag: string;
  /** The parameter its value sets in `perflab run`. */
  param: Name;
  value: CliValue;
  /** The upload query key it sets in `perflab upload` (as text); absent: a flag of `run` only. */
  upload?: "tool" | "arguments" | "session";
  /** Given without --scenario, the flag picks this scenario (the default scenario needs none). */
  picksScenario?: boolean;
  /** Its lines in each command's help; a flag without one is named in another's line. */
  help?: { run?: CliHelp; upload?: CliHelp };
};

/** What `POST /api/v1/uploads` knows of the call an uploaded output measured. */
export type UploadCall = {
  /** The query's `tool`, else the `tool` tag of the output's operations. */
  tool: string | null;
  arguments?: Record<string, unknown> | undefined;
  session?: string | undefined;
};

/**
 * Everything about one scenario, declared once in its folder under scenarios/ and listed in
 * registry.ts: the worker, the API, the run form, the labels and the CLI all read it from there.
 */
export type ScenarioModule<
  Id extends string = string,
  P extends z.ZodType = z.ZodType,
  Name extends string = string,
> = {
  id: Id;
  title: string;
  /** The API's (OpenAPI's) and the run form's description of it. */
  description: string;
  /** Its k6 script, in packages/scenarios/k6/. */
  script: string;
  params: P;
  /** Parameters the schema accepts, for examples and tests. */
  defaultParams: z.input<P>;
  /** The `method` tag of the requests that count as operations (its JSON-RPC method, or HTTP verb). */
  operationMethod: string;
  /** What the server must answer (its manifest's `protocols`): MCP tools, or the plain HTTP routes. */
  protocol: "mcp" | "http";
  operations: ScenarioOperations;
  /** The k6 script's environment from the parsed parameters and the cell's load. */
  env(params: z.output<P>, load: K6Load): Record<string, string>;
  /**
   * Files the script opens (k6's `open()`) by the variable that carries each one's path, for what
   * is too large for the environment (tool arguments up to 1 MiB); the runner writes them.
   */
  files?(params: z.output<P>): Record<string, string>;
  /**
   * The tools a cell calls when its parameters name them otherwise than as `tool`, each with the
   * path of the parameter naming it (["tools", 1, "tool"]): a matrix whose servers lack one is refused.
   */
  calledTools?(params: z.output<P>): { tool: string; path: (string | number)[] }[];
  /**
   * What is wrong with a cell's duration for these parameters, if anything: the matrix refuses it at
   * `durationSec` with this message (a storm's levels need time to ramp, be held and close).
   */
  durationIssue?(
    params: z.output<P>,
    load: { durationSec: number; rate?: number | undefined },
  ): string | null;
  /** Whether a cell with these parameters reaches the fixtures (servers/fixtures). */
  needsFixtures(params: z.output<P>): boolean;
  /**
   * The id of the workspace's stored k6 script a cell with these parameters runs, if any: the worker
   * writes it beside the scenario's scripts, as the file the script imports (k6-script.js).
   */
  storedScript?(params: z.output<P>): string;
  /** Its parameters before the schema, from what an upload's query says of the call. */
  uploadParams(call: UploadCall): Record<string, unknown>;
  /** What a cell of it does in a few words (contracts' workloadName), when its params name no tool. */
  workload?(params: z.output<P>): string;
  form: readonly FormFieldSpec<Name>[];
  cli: readonly CliFlag<Name>[];
};

/** The names of a schema's parameters. */
export type ParamName<P extends z.ZodType> = Extract<keyof z.input<P>, string>;

/** A scenario module, its id and schema inferred: `export const x = defineScenario({ … })`. */
export const defineScenario = <const Id extends string, P extends z.ZodType>(
  module: ScenarioModule<Id, P, ParamName<P>>,
): ScenarioModule<Id, P, ParamName<P>> => module;
