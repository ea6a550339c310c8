import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { apiDeclarations } from "./api-index";
import { API_METHODS, type ApiMethod, type ApiOperation } from "./api-spec";

const TOKEN_DESCRIPTION =
  "An API token (`plab_` and 43 characters), from Settings → API tokens or `pnpm -s token create`. " +
  "With `PERFLAB_ACCESS=token` every request that changes something needs one; reading stays open. " +
  "With `PERFLAB_ACCESS=private` reading needs one too, and shows that token's workspace only; " +
  "public and unlisted reports, the session and this document stay open. " +
  "In an open lab a token is optional, but one that is sent must be valid, and runs record it.";

/** A route module's operations: its exports named after an HTTP method (a schema.ts may export more). */
export function operationsOf(declarations: Record<string, unknown>): [ApiMethod, ApiOperation][] {
  return API_METHODS.filter((method) => method in declarations).map((method) => [
    method,
    declarations[method] as ApiOperation,
  ]);
}

/**
 * The OpenAPI 3.1 document of /api/v1, generated from what each route declares beside its handler
 * (src/server/api-index.ts lists them by path), with the schemas the handlers parse and the DTOs
 * are inferred from.
 */
function buildDocument() {
  const registry = new OpenAPIRegistry();
  registry.registerComponent("securitySchemes", "apiToken", {
    type: "http",
    scheme: "bearer",
    description: TOKEN_DESCRIPTION,
  });
  for (const [path, declarations] of Object.entries(apiDeclarations)) {
    for (const [method, operation] of operationsOf(declarations)) {
      registry.registerPath({ ...operation, method: method.toLowerCase() as Lowercase<ApiMethod>, path });
    }
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "perflab API",
      version: "1",
      description:
        "Queue benchmark matrices of MCP server runtimes and read their runs. Errors are RFC 9457 problem " +
        "details; a path no route has answers 404, and a method a route does not serve 405 with an `Allow` " +
        "header listing the ones it does (with HEAD beside GET, and OPTIONS).",
    },
  });
}

let cached: ReturnType<typeof buildDocument> | undefined;

/** Built once per process: the schemas do not change while it runs. */
export function getOpenApiDocument() {
  cached ??= buildDocument();
  return cached;
}
