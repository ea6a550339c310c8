import { ZWorkerList } from "@perflab/contracts";
import { declareOperation, json, named, problem, reader, readRefused, serverError } from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "listWorkers",
  security: reader,
  summary: "The running workers: who takes queued cells, and whether they reach a Docker engine",
  description:
    "Each worker rewrites its entry every 5 s and checks its Docker engine every 15 s; an entry " +
    "lapses 15 s after a worker was killed. No workers: queued cells wait until one starts.",
  responses: {
    200: json("The workers, by host.", named("WorkerList", ZWorkerList)),
    401: readRefused,
    500: serverError,
    503: problem("Redis did not answer."),
  },
});
