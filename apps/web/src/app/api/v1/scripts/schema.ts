import { ZCreateK6Script, ZK6ScriptDto, ZK6ScriptList } from "@perflab/contracts";
import {
  badJson,
  crossSite,
  declareOperation,
  json,
  named,
  problem,
  rateLimited,
  reader,
  readRefused,
  refused,
  serverError,
  writer,
} from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "listK6Scripts",
  summary: "The workspace's stored k6 scripts (without their sources)",
  description: "Only the caller's workspace: another workspace's scripts are never listed.",
  security: reader,
  responses: {
    200: json("Newest first.", named("K6ScriptList", ZK6ScriptList)),
    401: readRefused,
    500: serverError,
  },
});

/** createK6Script parses the body with ZCreateK6Script. */
export const POST = declareOperation({
  operationId: "createK6Script",
  summary: "Store a k6 script in the workspace, for the k6-script scenario",
  description:
    "The lab's k6 checks it first (`k6 inspect`, as the worker will run it: beside the scenario's wrapper, " +
    "k6/k6-script.js). See docs/custom-scripts.md for what the script reads and how its requests are counted.",
  security: writer,
  request: {
    body: {
      required: true,
      content: { "application/json": { schema: named("CreateK6Script", ZCreateK6Script) } },
    },
  },
  responses: {
    201: json(
      "The stored script; its `id` is a matrix's `params.scriptId`.",
      named("K6Script", ZK6ScriptDto),
    ),
    400: badJson,
    401: refused,
    403: crossSite,
    409: problem("The workspace has a script of this name (`name`)."),
    422: problem(
      "The body is invalid, or k6 refused the script: `errors` names the field (`name`, `source`); a " +
        "refused script's message starts with its line (`line 3, column 12: …`).",
    ),
    429: rateLimited,
    503: problem("The lab's k6 is not installed where the web app runs."),
    500: serverError,
  },
});
