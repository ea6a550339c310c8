import type pg from "pg";

const pools = new WeakMap<object, pg.Pool>();

/** Records the node-postgres pool under a client `createDb` made. */
export function rememberPool(db: object, pool: pg.Pool): void {
  pools.set(db, pool);
}

/**
 * The node-postgres pool under a client made by `createDb`. Prisma passes a `Bytes` value as
 * base64 text and back (a 1 MiB row allocates several MiB on the way); node-postgres sends a Buffer
 * as it is, in binary.
 */
export function poolOf(db: object): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error("poolOf: this client was not made by createDb");
  return pool;
}
