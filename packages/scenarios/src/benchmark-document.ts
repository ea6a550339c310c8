/**
 * The `validate_document` benchmark document of servers/CONTRACT.md section 4.3, kept with the other
 * tool defaults in k6/tool-defaults.js, which the k6 script reads too.
 */
export { benchmarkDocument } from "../k6/tool-defaults.js";
