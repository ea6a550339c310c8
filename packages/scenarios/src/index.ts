export * from "./benchmark-document.ts";
export * from "./catalog.ts";
export * from "./form.ts";
export * from "./load.ts";
export * from "./registry.ts";
export * from "./scenario-module.ts";
export * from "./scenarios/http-route/index.ts";
export * from "./scenarios/mcp-tool-call/index.ts";
