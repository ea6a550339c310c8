import {
  createMatrixSpecSchema,
  expandMatrix,
  fieldErrors,
  findStudy,
  studies,
  studyMatrix,
} from "@perflab/contracts";
import { describe, expect, it } from "vitest";
import { loadServerCatalog, withVariants } from "./server-catalog.ts";

// The reference servers as the lab ships them: every study must queue on them as it stands.
const catalog = withVariants(loadServerCatalog());
const schema = createMatrixSpecSchema({ servers: catalog.map((s) => ({ name: s.name, tools: s.tools })) });
const names = catalog.map((s) => s.name);

describe("studies", () => {
  it.each(studies.flatMap((s) => (["published", "quick"] as const).map((v) => [s.id, v] as const)))(
    "%s (%s) is a valid matrix of the shipped servers, missing only the rows perflab cannot run",
    (id, variant) => {
      const study = findStudy(id)!;
      const { spec, missing } = studyMatrix(study, variant, names);
      const unavailable = study.rows.filter((r) => r.unavailable).map((r) => r.label);
      expect(missing.map((r) => r.label)).toEqual(unavailable);
      const parsed = schema.safeParse(spec);
      expect(parsed.success ? [] : fieldErrors(parsed.error)).toEqual([]);
    },
  );

  it("keeps the quick variants to a quarter of an hour, shorter than as published", () => {
    for (const study of studies) {
      const cells = (variant: "published" | "quick") => {
        const spec = schema.parse(studyMatrix(study, variant, names).spec);
        return expandMatrix(spec).length * (spec.durationSec + spec.warmupSec + spec.cooldownSec);
      };
      expect(cells("quick"), study.id).toBeLessThanOrEqual(15 * 60);
      expect(cells("published"), study.id).toBeGreaterThan(cells("quick"));
    }
  });

  it("leaves out the servers a lab lacks and names each row with why", () => {
    const study = findStudy("io-tools")!;
    const { spec, rows, missing } = studyMatrix(study, "quick", ["go", "node", "rust"]);
    expect(spec.servers).toEqual(["rust", "go", "node"]);
    expect(spec.study).toEqual({ id: "io-tools", variant: "quick" });
    // Every row the study printed is listed, runnable or not, then the lab's extra servers.
    expect(rows.filter((r) => !r.extra).map((r) => r.label)).toEqual(study.rows.map((r) => r.label));
    expect(rows.filter((r) => r.extra).map((r) => r.server)).toEqual([
      "go",
      "java",
      "node",
      "python:workers",
    ]);
    const reason = (label: string) => missing.find((r) => r.label === label)?.missing;
    expect(reason("rust")).toBeUndefined();
    expect(reason("go")).toBe("this lab has no server go-mcp-go");
    expect(reason("java")).toBe("this lab has no server spring-ai");
    expect(reason("quarkus")).toBe("this lab has no server quarkus");
    expect(reason("java-native")).toMatch(/GraalVM native-image/);
    expect(missing).toHaveLength(study.rows.length - 1 + 2);
  });

  it("gives every row the study printed its published figures, and only rows have them", () => {
    for (const study of studies) {
      for (const row of study.rows)
        expect(row.published?.length, `${study.id} ${row.label}`).toBeGreaterThan(0);
      for (const row of study.rows) {
        for (const cell of row.published ?? []) {
          if (cell.scenario !== undefined) expect(study.scenarios[cell.scenario], study.id).toBeDefined();
          if (cell.vus !== undefined) {
            expect(
              study.published.loadLevels.some((l) => l.vus === cell.vus),
              `${study.id} ${cell.vus}`,
            ).toBe(true);
          }
        }
      }
    }
  });

  it("runs the quick variant on the lab's default driver, the published one as the study ran", () => {
    const study = findStudy("four-tools")!;
    expect(studyMatrix(study, "quick", names, "docker").spec.driver).toBe("docker");
    expect(studyMatrix(study, "quick", names).spec.driver).toBe("local");
    expect(studyMatrix(study, "published", names, "local").spec).toMatchObject({
      driver: "docker",
      limits: { cpus: 1 },
    });
  });

  it("gives the REST study wrk's 2 s client timeout, so its errors are counted as the study's were", () => {
    const study = findStudy("rest-postgres")!;
    for (const variant of ["published", "quick"] as const) {
      expect(schema.parse(studyMatrix(study, variant, names).spec).timeoutMs).toBe(2000);
    }
    expect(
      schema.parse(studyMatrix(findStudy("trivial-route")!, "quick", names).spec).timeoutMs,
    ).toBeUndefined();
  });

  it("has unique ids", () => {
    expect(new Set(studies.map((s) => s.id)).size).toBe(studies.length);
  });
});
