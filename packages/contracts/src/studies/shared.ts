/** Workloads and loads the studies share. */
export const echo = (padToBytes: number) => ({
  id: "mcp-tool-call",
  params: { tool: "echo", arguments: { message: "hello", pad_to_bytes: padToBytes } },
});

export const tool = (name: string, args?: Record<string, unknown>) => ({
  id: "mcp-tool-call",
  params: args ? { tool: name, arguments: args } : { tool: name },
});

export const quickLocal = { durationSec: 20, warmupSec: 5, rounds: 1, driver: "local" } as const;
