import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { env } from "../env";
import { IDEMPOTENCY_HEADER } from "./api-spec";
import type { Caller } from "./auth";
import { AppError } from "./errors";
import { clientAddress } from "./rate-limit";
import { getCountersConnection } from "./redis";

/** Printable ASCII without spaces, as a UUID or a CI job's own id is. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** How long a first request may take before a repeat may run again (a crashed process frees its keys). */
const IN_FLIGHT_SECONDS = 600;
/** The answer's headers a repeat gets back, beside its own request id. */
const KEPT_HEADERS = ["content-type", "location", "cache-control"];

type Entry =
  | { state: "pending"; fingerprint: string }
  | { state: "done"; fingerprint: string; answer: string };
type Answer = { status: number; headers: Record<string, string>; body: string };

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

const keyError = (message: string) =>
  new AppError("invalid", "The Idempotency-Key header is invalid.", [{ field: IDEMPOTENCY_HEADER, message }]);

/**
 * Runs a request that creates something at most once per `Idempotency-Key` and caller (its token,
 * else its client address): a repeat gets the first answer (status and body) and creates nothing;
 * the same key with another request is a 422, and one that arrives while the first is still being
 * answered a 409. Keys live in Redis (`SET NX`, so two repeats in flight cannot both run), expiring
 * after PERFLAB_IDEMPOTENCY_TTL_HOURS; only 2xx answers are kept, so a refused request can be fixed
 * and sent again under its key. Without the header, `run` runs as it is.
 */
export async function idempotent({
  request,
  caller,
  requestId,
  fingerprint,
  run,
}: {
  request: Request;
  caller: Caller | null;
  requestId: string;
  /** What the request asks for beyond its method, path and query: its body, say. */
  fingerprint: string;
  run: () => Promise<Response>;
}): Promise<Response> {
  const key = request.headers.get(IDEMPOTENCY_HEADER);
  if (key === null) return run();
  if (!KEY_PATTERN.test(key)) throw keyError("must be 1 to 255 printable ASCII characters without spaces");
  const scope = caller ? `token:${caller.tokenId}` : `addr:${clientAddress(request)}`;
  const url = new URL(request.url);
  const print = sha256(`${request.method} ${url.pathname}${url.search}\n${fingerprint}`).toString("hex");
  const redisKey = `perflab:idem:${sha256(`${scope}\n${key}`).toString("hex")}`;
  // The answer is sealed with the key itself, which Redis never holds: a token's secret stays unreadable there.
  const seal = sha256(`seal\n${scope}\n${key}`);
  const redis = getCountersConnection();
  const pending: Entry = { state: "pending", fingerprint: print };
  const claimed = await unavailableOnError(() =>
    redis.set(redisKey, JSON.stringify(pending), "EX", IN_FLIGHT_SECONDS, "NX"),
  );
  if (claimed !== "OK")
    return replay(await unavailableOnError(() => redis.get(redisKey)), print, seal, requestId);
  let response: Response;
  try {
    response = await run();
  } catch (error) {
    await redis.del(redisKey).catch(() => undefined);
    throw error;
  }
  if (response.status < 200 || response.status >= 300) {
    await redis.del(redisKey).catch(() => undefined);
    return response;
  }
  const answer: Answer = {
    status: response.status,
    headers: keptHeaders(response),
    body: await response.text(),
  };
  const done: Entry = { state: "done", fingerprint: print, answer: sealAnswer(answer, seal) };
  await redis
    .set(redisKey, JSON.stringify(done), "EX", env.PERFLAB_IDEMPOTENCY_TTL_HOURS * 3_600)
    .catch(() => {
      // Not kept: a repeat would create again, as without a key; the answer itself stands.
      console.warn(`[idempotency] the answer to ${requestId} was not kept`);
    });
  return new Response(answer.body, { status: answer.status, headers: response.headers });
}

/** A repeat's answer: the first one, or why not. */
function replay(stored: string | null, print: string, seal: Buffer, requestId: string): Response {
  // The first request ended (refused, or its key expired) between the two reads: try again.
  if (stored === null) {
    throw new AppError(
      "conflict",
      "A request with this Idempotency-Key has just ended; send it again.",
      [{ field: IDEMPOTENCY_HEADER, message: "was in use a moment ago; send the request again" }],
      { "retry-after": "1" },
    );
  }
  const entry = JSON.parse(stored) as Entry;
  if (entry.fingerprint !== print) {
    throw keyError(
      "was used for another request (method, path, query or body); use a new key for a new request",
    );
  }
  if (entry.state === "pending") {
    throw new AppError(
      "conflict",
      "The first request with this Idempotency-Key is still being answered.",
      [
        {
          field: IDEMPOTENCY_HEADER,
          message: "its first request is still in progress; retry in a few seconds",
        },
      ],
      { "retry-after": "2" },
    );
  }
  const answer = openAnswer(entry.answer, seal);
  return new Response(answer.body, {
    status: answer.status,
    headers: { ...answer.headers, "x-request-id": requestId, "idempotent-replayed": "true" },
  });
}

async function unavailableOnError<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch {
    throw new AppError(
      "unavailable",
      "Idempotency keys are unavailable: Redis did not answer. Nothing was created.",
    );
  }
}

function keptHeaders(response: Response): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) kept[name] = value;
  }
  return kept;
}

function sealAnswer(answer: Answer, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(answer), "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64");
}

function openAnswer(text: string, key: Buffer): Answer {
  const raw = Buffer.from(text, "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8"));
}
