export * from "./benchmark-document.ts";
export * from "./catalog.ts";
export * from "./mcp-tool-call.ts";
