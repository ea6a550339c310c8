import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";
import { type App, type AppConfig, startApp } from "../src/app.js";

export interface ToolVector {
  name: string;
  tool: string;
  arguments: Record<string, unknown>;
  text?: string;
  text_bytes?: number;
  text_sha256?: string;
}

export const vectors = (
  JSON.parse(readFileSync(new URL("../../contract/vectors.json", import.meta.url), "utf8")) as {
    tools: ToolVector[];
  }
).tools;

const defaults: AppConfig = {
  port: 0,
  stateless: false,
  jsonResponse: false,
  legacySse: false,
  parallelism: 1,
};

export const start = (config: Partial<AppConfig> = {}): Promise<App> => startApp({ ...defaults, ...config });

export async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: "express-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

export const textOf = (r: CallToolResult): string => {
  expect(r.content).toHaveLength(1);
  expect(r.content[0]?.type).toBe("text");
  return (r.content[0] as { text: string }).text;
};

/** `/debug/runtime` as parsed JSON. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON body checked field by field by the callers
export const runtime = async (app: App): Promise<any> =>
  (await fetch(`http://127.0.0.1:${app.port}/debug/runtime`)).json();
