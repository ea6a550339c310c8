import pino from "pino";

export const logger = pino({ name: "perflab-worker", level: "info" });
export type Logger = typeof logger;
