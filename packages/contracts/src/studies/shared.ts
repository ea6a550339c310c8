/** Workloads and loads the studies share. */
export const echo = (padToBytes: number) => ({
  id: "mcp-tool-call",
  params: { tool: "echo", arguments: { message: "hello", pad_to_bytes: padToBytes } },
});

/** echo with a message of this many bytes: the request grows, and the answer with it. */
export const request = (messageBytes: number) => ({ id: "mcp-request-size", params: { messageBytes } });

/**
 * The tools mixed in one load, equal weights, in sessions of ten calls: what the studies that mixed
 * their tools ran (they give no weights, and no calls per session: ten is the lab's choice).
 */
export const mix = (...tools: { tool: string; arguments?: Record<string, unknown> }[]) => ({
  id: "mcp-tool-mix",
  params: { tools: tools.map((t) => ({ ...t, weight: 1 })), callsPerSession: 10 },
});

export const tool = (name: string, args?: Record<string, unknown>) => ({
  id: "mcp-tool-call",
  params: args ? { tool: name, arguments: args } : { tool: name },
});

export const quickLocal = { durationSec: 20, warmupSec: 5, rounds: 1, driver: "local" } as const;
