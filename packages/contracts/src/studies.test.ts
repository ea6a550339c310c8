import { describe, expect, it } from "vitest";
import { createMatrixSpecSchema, expandMatrix } from "./matrix.ts";
import { fieldErrors } from "./problem.ts";
import { loadServerCatalog, withVariants } from "./server-catalog.ts";
import { findStudy, studies, studyMatrix } from "./studies.ts";

// The reference servers as the lab ships them: every study must queue on them as it stands.
const catalog = withVariants(loadServerCatalog());
const schema = createMatrixSpecSchema({ servers: catalog.map((s) => ({ name: s.name, tools: s.tools })) });
const names = catalog.map((s) => s.name);

describe("studies", () => {
  it.each(studies.flatMap((s) => (["published", "quick"] as const).map((v) => [s.id, v] as const)))(
    "%s (%s) is a valid matrix of the shipped servers, none missing",
    (id, variant) => {
      const { spec, missing } = studyMatrix(findStudy(id)!, variant, names);
      expect(missing).toEqual([]);
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

  it("leaves out the servers a lab lacks and names them", () => {
    const { spec, missing } = studyMatrix(findStudy("io-tools")!, "quick", ["go", "node"]);
    expect(spec.servers).toEqual(["go", "node"]);
    expect(missing).toEqual(["rust", "java", "bun", "python"]);
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

  it("has unique ids", () => {
    expect(new Set(studies.map((s) => s.id)).size).toBe(studies.length);
  });
});
