export * from "./decoder.ts";
export * from "./duration.ts";
export * from "./errors.ts";
export * from "./lines.ts";
export * from "./upload.ts";
