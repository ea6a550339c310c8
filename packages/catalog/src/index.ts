export { buildInputFiles, nativeBuildHash } from "./build-inputs.ts";
export { fixturesImageTag, k6ImageTag, serverImageTag, sourceHash } from "./image-tags.ts";
export { processAlive, processStartTime } from "./processes.ts";
export * from "./registered.ts";
export * from "./server-builds.ts";
export * from "./server-catalog.ts";
