import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";

// The contract's format definitions replace Ajv's, so every runtime asserts the same rules.
const CONTRACT_FORMATS = {
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  date: /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/,
  email: /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/,
};

/** The shared schema, read from servers/contract so no copy can drift. */
export const DOCUMENT_SCHEMA_URL = new URL("../../contract/document.schema.json", import.meta.url);

export type DocumentValidator = (document: unknown) => string;

/**
 * Compiles document.schema.json once and returns a function giving validate_document's TEXT.
 * Ajv reports leaf errors only, and already locates required, additionalProperties and
 * uniqueItems at the object or array that holds the keyword, as the contract wants.
 */
export function compileDocumentValidator(): DocumentValidator {
  const ajv = new Ajv2020({ allErrors: true, formats: CONTRACT_FORMATS });
  const validate = ajv.compile(JSON.parse(readFileSync(DOCUMENT_SCHEMA_URL, "utf8")));
  return (document) => {
    if (validate(document)) return '{"valid":true,"error_count":0,"error_paths":[]}';
    const paths = [...new Set((validate.errors ?? []).map((e) => e.instancePath))];
    // Paths hold only the schema's ASCII property names and indices: UTF-16 order is byte order.
    paths.sort();
    return JSON.stringify({ valid: false, error_count: paths.length, error_paths: paths });
  };
}
