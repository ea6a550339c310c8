/** One colour per server, by its place in the run: the same on every chart of the page. */
export const serverPalette = [
  "#0ea5e9",
  "#f59e0b",
  "#10b981",
  "#8b5cf6",
  "#f43f5e",
  "#64748b",
  "#14b8a6",
  "#eab308",
];

export const colourOf = (servers: string[], name: string) =>
  serverPalette[Math.max(0, servers.indexOf(name)) % serverPalette.length]!;

/** Rounds of one server share its colour and differ by dash: round 1 solid. */
const roundDashes = [undefined, "6 3", "2 3", "8 3 2 3"];
export const dashOf = (round: number) => roundDashes[(Math.max(1, round) - 1) % roundDashes.length];
