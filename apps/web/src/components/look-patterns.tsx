import type { Hatch, SeriesLook } from "@/lib/colours";

const SIZE = 5;

/** A pattern's id for a hatched look; one per colour, opacity and hatch. */
const patternId = (prefix: string, { colour, opacity, hatch }: SeriesLook) =>
  `${prefix}-${`${colour}-${opacity}-${hatch}`.replace(/[^a-zA-Z0-9-]/g, "")}`;

/** The stripes of each hatch, in one tile (rotated 45° for the diagonals). */
const stripes: Record<Hatch, { rotate: number; lines: [number, number, number, number][] }> = {
  forward: { rotate: 45, lines: [[0, 0, 0, SIZE]] },
  back: { rotate: -45, lines: [[0, 0, 0, SIZE]] },
  cross: {
    rotate: 45,
    lines: [
      [0, 0, 0, SIZE],
      [0, 0, SIZE, 0],
    ],
  },
  horizontal: { rotate: 0, lines: [[0, 0, SIZE, 0]] },
  vertical: { rotate: 0, lines: [[0, 0, 0, SIZE]] },
};

/**
 * The SVG patterns of a bar chart's hatched looks (lib/colours): its colour at its opacity, striped
 * in the panel's colour. Render inside the chart; `prefix` keeps ids apart between charts.
 */
export function LookPatterns({ prefix, looks }: { prefix: string; looks: Iterable<SeriesLook> }) {
  const hatched = new Map<string, SeriesLook & { hatch: Hatch }>();
  for (const look of looks) {
    if (look.hatch) hatched.set(patternId(prefix, look), { ...look, hatch: look.hatch });
  }
  return (
    <defs>
      {[...hatched].map(([id, look]) => (
        <pattern
          key={id}
          id={id}
          width={SIZE}
          height={SIZE}
          patternUnits="userSpaceOnUse"
          patternTransform={`rotate(${stripes[look.hatch].rotate})`}
        >
          <rect width={SIZE} height={SIZE} fill={look.colour} fillOpacity={look.opacity} />
          {stripes[look.hatch].lines.map(([x1, y1, x2, y2]) => (
            <line
              key={`${x1}${y1}${x2}${y2}`}
              x1={x1}
              y1={y1}
              x2={x2}
              y2={y2}
              stroke="var(--chart-hatch)"
              strokeWidth={2}
            />
          ))}
        </pattern>
      ))}
    </defs>
  );
}

/** A bar's fill for its look, spread into a recharts Bar: the pattern when hatched, edged in full. */
export function barLook(prefix: string, look: SeriesLook) {
  return {
    fill: look.hatch ? `url(#${patternId(prefix, look)})` : look.colour,
    fillOpacity: look.hatch ? 1 : look.opacity,
    stroke: look.colour,
    strokeWidth: look.opacity < 1 || look.hatch ? 1 : 0,
  };
}
