import { ZK6ScriptWithSource } from "@perflab/contracts";
import { z } from "zod";
import {
  crossSite,
  declareOperation,
  json,
  named,
  problem,
  reader,
  readRefused,
  refused,
  serverError,
  writer,
} from "@/server/api-spec";

const params = z.object({ id: z.string().max(64).describe("The script's id.") });
const notFound = problem(
  "No script of this workspace has this id (another workspace's is not found either).",
);

export const GET = declareOperation({
  operationId: "getK6Script",
  summary: "One stored k6 script, with its source",
  security: reader,
  request: { params },
  responses: {
    200: json("The script.", named("K6ScriptWithSource", ZK6ScriptWithSource)),
    401: readRefused,
    404: notFound,
    500: serverError,
  },
});

export const DELETE = declareOperation({
  operationId: "deleteK6Script",
  summary: "Remove a stored k6 script",
  description: "Cells queued with it that have not started fail, saying the script is gone.",
  security: writer,
  request: { params },
  responses: {
    204: { description: "Removed." },
    401: refused,
    403: crossSite,
    404: notFound,
    500: serverError,
  },
});
