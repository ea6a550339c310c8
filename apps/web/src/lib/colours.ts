/**
 * Server colours: the same server (or variant) has the same colour on every chart of every page —
 * run pages, reports, comparisons of runs. A server's hue follows its place among the catalog's
 * servers (`catalog`: every server's name followed by its variants', as the form lists them), never
 * its place in one run; its variants take darker and lighter tones of that hue.
 *
 * Each colour is a CSS variable, `--server-<hue>-<tone>` in app/globals.css, with shades per theme:
 * darker on the light panels, lighter on the dark ones, so every line and bar keeps its contrast.
 */
export const SERVER_HUES = 8;
export const SERVER_TONES = 3;

/** The run tag a comparison of runs adds to a server's name ("go · 3f2a9c1"; see mergeRuns). */
const RUN_TAG = " · ";
/** A variant's name: `<server>:<variant>` (the catalog's VARIANT_SEPARATOR). */
const VARIANT = ":";

/** The server a chart's name is of: "go · 3f2a9c1" (a comparison of runs) is go. */
export const serverOfName = (name: string): string => name.split(RUN_TAG)[0]!;

/** A small, stable hash (FNV-1a), for servers the catalog does not know. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The hue and tone of a server. Servers of the catalog take the hues in its order; a server it does
 * not know (a run uploaded from another lab, a server since removed) a hue the catalog leaves free,
 * picked by its name, so it too keeps it from page to page. Tone 0 is the server itself, then its
 * variants in the catalog's order.
 */
export function serverShade(catalog: readonly string[], name: string): { hue: number; tone: number } {
  const server = serverOfName(name);
  const [base = server] = server.split(VARIANT);
  const bases = [...new Set(catalog.map((n) => n.split(VARIANT)[0]!))];
  const known = bases.indexOf(base);
  const spare = SERVER_HUES - Math.min(bases.length, SERVER_HUES);
  const hue =
    known >= 0
      ? known % SERVER_HUES
      : spare > 0
        ? SERVER_HUES - spare + (hash(base) % spare)
        : hash(base) % SERVER_HUES;
  if (server === base) return { hue, tone: 0 };
  const family = catalog.filter((n) => n.split(VARIANT)[0] === base && n !== base);
  const place = family.indexOf(server);
  const tone = 1 + ((place >= 0 ? place : hash(server)) % (SERVER_TONES - 1));
  return { hue, tone };
}

/** A server's colour, for a stroke, a fill or a legend's swatch. */
export function serverColour(catalog: readonly string[], name: string): string {
  const { hue, tone } = serverShade(catalog, name);
  return `var(--server-${hue}-${tone})`;
}

/**
 * The same server more than once in one chart — its rounds, or its runs in a comparison of runs —
 * keeps its colour: the first in full, the next ones fainter, then hatched (bars); dashed (lines).
 */
const repeatOpacities = [1, 0.55, 0.3];
export const repeatOpacity = (repeat: number): number => repeatOpacities[repeat % repeatOpacities.length]!;

/** Stripes over a bar, in the panel's colour (`--chart-hatch`), so they show on a full bar too. */
export const HATCHES = ["forward", "back", "cross", "horizontal", "vertical"] as const;
export type Hatch = (typeof HATCHES)[number];
/** Looks one colour can take: every opacity plain, then every opacity under each hatch. */
export const LOOKS_PER_COLOUR = repeatOpacities.length * (HATCHES.length + 1);

/** The `n`th look of one colour: 0–2 plain and fainter, then hatched; distinct up to LOOKS_PER_COLOUR. */
export function nthLook(n: number): { opacity: number; hatch: Hatch | null } {
  const k = n % LOOKS_PER_COLOUR;
  const pattern = Math.floor(k / repeatOpacities.length);
  return { opacity: repeatOpacity(k), hatch: pattern === 0 ? null : HATCHES[pattern - 1]! };
}

/**
 * Rounds of one server share its colour and differ by dash: round 1 solid, then a dash of its own
 * for each round up to 20 (the form's most), so no two rounds of a server draw the same line.
 */
const roundDashes = [
  undefined,
  "6 3",
  "2 3",
  "8 3 2 3",
  "12 4",
  "1 2",
  "4 2",
  "10 3 2 3 2 3",
  "6 2 1 2",
  "3 6",
  "14 3 4 3",
  "2 6",
  "8 6",
  "5 2 5 6",
  "16 4",
  "1 4",
  "9 3 3 3",
  "4 4 1 4",
  "20 5",
  "12 3 2 3 2 3 2 3",
];
export const MAX_DISTINCT_ROUNDS = roundDashes.length;
export const dashOf = (round: number) => roundDashes[(Math.max(1, round) - 1) % roundDashes.length];

/**
 * Which repeat of its server each key is, in order of first appearance: keys of one server (its
 * rounds, its runs) count 0, 1, 2…; another server's start again at 0.
 */
export function repeatsOf(series: readonly { key: string; serverName: string }[]): Map<string, number> {
  const seen = new Map<string, string[]>();
  const repeats = new Map<string, number>();
  for (const { key, serverName } of series) {
    if (repeats.has(key)) continue;
    const server = serverOfName(serverName);
    const keys = seen.get(server) ?? [];
    repeats.set(key, keys.length);
    seen.set(server, [...keys, key]);
  }
  return repeats;
}

export type SeriesLook = { colour: string; opacity: number; hatch?: Hatch | null };

/**
 * The look of each of a chart's names (servers, or "server · run" in a comparison of runs): its
 * server's colour, fainter then hatched for each repeat of the server (distinct for 8 runs and more).
 */
export function serverLooks(catalog: readonly string[], names: readonly string[]): Map<string, SeriesLook> {
  const repeats = repeatsOf(names.map((name) => ({ key: name, serverName: name })));
  return new Map(
    names.map((name) => [name, { colour: serverColour(catalog, name), ...nthLook(repeats.get(name) ?? 0) }]),
  );
}

/** A hatch's stripes as CSS backgrounds, for a swatch (the bars draw them as an SVG pattern). */
const hatchCss: Record<Hatch, string[]> = {
  forward: ["45deg"],
  back: ["-45deg"],
  cross: ["45deg", "-45deg"],
  horizontal: ["0deg"],
  vertical: ["90deg"],
};

/** A legend's or tooltip's square for a look: filled as its bars (fainter, hatched), edged in full. */
export const swatchStyle = ({ colour, opacity, hatch }: SeriesLook) => {
  const fill =
    opacity < 1 ? `color-mix(in srgb, ${colour} ${Math.round(opacity * 100)}%, transparent)` : colour;
  const stripes = (hatch ? hatchCss[hatch] : []).map(
    (angle) => `repeating-linear-gradient(${angle}, transparent 0 2px, var(--chart-hatch) 2px 3.5px)`,
  );
  return {
    background: [...stripes, `linear-gradient(${fill}, ${fill})`].join(", "),
    boxShadow: `inset 0 0 0 1px ${colour}`,
  };
};

/** A load level's place among a chart's: closed-model levels by VUs, then open-model ones by rate. */
function levelOrder(cells: readonly CellLookInput[]): Map<string, number> {
  const keys = [...new Map(cells.map((c) => [levelKeyOf(c), c])).values()].sort(
    (a, b) =>
      Number(a.rate != null) - Number(b.rate != null) ||
      (a.rate ?? 0) - (b.rate ?? 0) ||
      (a.vus ?? 0) - (b.vus ?? 0),
  );
  return new Map(keys.map((c, i) => [levelKeyOf(c), i]));
}
const levelKeyOf = (c: CellLookInput) => `${c.vus ?? ""}\u0000${c.rate ?? ""}`;

type CellLookInput = {
  id: string;
  serverName: string;
  round: number;
  vus?: number | null;
  rate?: number | null;
};

/**
 * Each cell's bar of the percentile chart in its server's colour: its load level hatched its own
 * way (the lowest plain), a server's later rounds (and its other runs, comparing runs) fainter. No
 * two cells of one colour share a look while its load levels × its repeats (rounded up to a multiple
 * of three) stay within the six patterns × three opacities; beyond, labels tell them apart.
 */
export function cellLooks(
  cells: readonly CellLookInput[],
  catalog: readonly string[],
): Map<string, SeriesLook> {
  const round = (cell: { serverName: string; round: number }) => `${cell.serverName}\u0000${cell.round}`;
  const repeats = repeatsOf(cells.map((cell) => ({ key: round(cell), serverName: cell.serverName })));
  const levels = levelOrder(cells);
  const perOpacity = repeatOpacities.length;
  return new Map(
    cells.map((cell) => {
      const repeat = repeats.get(round(cell)) ?? 0;
      const level = levels.get(levelKeyOf(cell)) ?? 0;
      // A repeat past the plain opacities takes the hatches the levels leave free: looks stay distinct.
      const pattern = (Math.floor(repeat / perOpacity) * levels.size + level) % (HATCHES.length + 1);
      const look = nthLook(pattern * perOpacity + (repeat % perOpacity));
      return [cell.id, { colour: serverColour(catalog, cell.serverName), ...look }];
    }),
  );
}
