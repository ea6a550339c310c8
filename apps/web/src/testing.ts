/**
 * What benches and scripts outside the app use of it: the operations they time, called as the routes
 * call them, and the environment's schema the configuration page is generated from.
 */
export { webEnvSchema } from "./env-schema";
export { createReport } from "./server/operations/create-report";
export { createUpload, UPLOAD_MAX_BYTES } from "./server/operations/create-upload";
