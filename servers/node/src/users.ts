// The Postgres side of get_user and GET /rest/users/:id (CONTRACT.md sections 4.10, 6 and 7), with
// no other backend imported: servers/fastify, a REST-only server, uses it alone.
import pg from "pg";

/** A pg client that gives up opening its connection after 2 s (CONTRACT.md section 3). */
class PgClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super({ ...config, connectionTimeoutMillis: 2_000 });
  }
}

/** The contract's pool: at most 25 connections, opened on demand, none kept at a minimum. */
export function createUserPool(connectionString: string): pg.Pool {
  return new pg.Pool({
    connectionString,
    max: 25,
    // pg.Pool uses connectionTimeoutMillis also as the wait for a free connection: 5 s there, as
    // in the other servers, while PgClient keeps the contract's 2 s limit on opening one.
    connectionTimeoutMillis: 5_000,
    query_timeout: 5_000,
    Client: PgClient,
  });
}

export interface UserRow {
  id: number;
  name: string;
  email: string;
  created_at: string;
}

/** The primary-key lookup; null when no row exists. Driver errors (down, timeout) are thrown as they are. */
export async function selectUser(pool: pg.Pool, id: number): Promise<UserRow | null> {
  // A named query is prepared once per connection, as pgx does for the Go server.
  const { rows } = await pool.query<{ id: number; name: string; email: string; created_at: Date }>({
    name: "get_user",
    text: "SELECT id, name, email, created_at FROM users WHERE id = $1",
    values: [id],
  });
  const row = rows[0];
  if (!row) return null;
  const created = `${row.created_at.toISOString().slice(0, 19)}Z`;
  return { id: row.id, name: row.name, email: row.email, created_at: created };
}
