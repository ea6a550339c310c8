import { ZServerList } from "@perflab/contracts";
import { declareOperation, json, named, reader, readRefused, serverError } from "@/server/api-spec";

export const GET = declareOperation({
  operationId: "listServers",
  security: reader,
  summary: "The MCP servers a matrix may name",
  responses: {
    200: json("The server catalog.", named("ServerList", ZServerList)),
    401: readRefused,
    500: serverError,
  },
});
