export const EXIT = { ok: 0, failed: 1, error: 2, inconclusive: 3, interrupted: 130 } as const;

/** Where the command writes: the process's streams, or a test's buffers. */
export type Io = { out: (line: string) => void; err: (line: string) => void; raw?: (text: string) => void };
