export * from "./benchmark-document.ts";
export * from "./catalog.ts";
export * from "./http-route.ts";
export * from "./load.ts";
export * from "./mcp-tool-call.ts";
