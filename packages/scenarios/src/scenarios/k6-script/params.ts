import { z } from "zod";

/** The file name a cell's stored script is written as, beside k6/k6-script.js which imports it. */
export const USER_SCRIPT_FILE = "user-script.js";

/** A stored script's id, as `POST /api/v1/scripts` gave it (a cuid). */
export const ZScriptId = z
  .string({ error: "must be the id of a stored script (GET /api/v1/scripts)" })
  .regex(/^[a-z0-9]{20,40}$/, "must be the id of a stored script (GET /api/v1/scripts)");

/** An id of the right shape that no stored script has: examples, the form's start, tests. */
export const EXAMPLE_SCRIPT_ID = "cexamplek6script000000000";

export const ZK6ScriptParams = z.strictObject({ scriptId: ZScriptId });
export type TK6ScriptParams = z.output<typeof ZK6ScriptParams>;
