/**
 * What benches and scripts outside the app use of it: the operations they time, called as the routes
 * call them, the environment's schema the configuration page is generated from, and the study
 * view the docs' evidence is printed with.
 */
export { webEnvSchema } from "./env-schema";
export type { CellDto, RunDto } from "./lib/dto";
export { type BesideTable, studyBeside } from "./lib/study-beside";
export { createReport } from "./server/operations/create-report";
export { createUpload, UPLOAD_MAX_BYTES } from "./server/operations/create-upload";
