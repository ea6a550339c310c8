//! `validate_document` (CONTRACT.md section 4.3) on the `jsonschema` crate.

use std::collections::BTreeSet;

use jsonschema::{Draft, Validator};
use regex::Regex;
use serde::Serialize;
use serde_json::Value;

/// Copy of servers/contract/document.schema.json (a test keeps them identical),
/// embedded so the Docker build context can stay this folder.
pub const DOCUMENT_SCHEMA: &str = include_str!("../document.schema.json");

/// The contract's format definitions, which replace the crate's built-in ones so
/// every runtime asserts exactly the same rules.
const FORMATS: [(&str, &str); 3] = [
    (
        "uuid",
        r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$",
    ),
    (
        "date",
        r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$",
    ),
    (
        "email",
        r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$",
    ),
];

#[derive(Serialize, Debug, PartialEq)]
pub struct Validation {
    pub valid: bool,
    pub error_count: usize,
    pub error_paths: Vec<String>,
}

/// Compiled once at start and shared by every session.
pub struct DocumentValidator {
    validator: Validator,
}

impl DocumentValidator {
    pub fn new() -> Result<Self, String> {
        let schema: Value = serde_json::from_str(DOCUMENT_SCHEMA).map_err(|e| e.to_string())?;
        let mut options = jsonschema::options()
            .with_draft(Draft::Draft202012)
            .should_validate_formats(true);
        for (name, pattern) in FORMATS {
            let re = Regex::new(pattern).map_err(|e| e.to_string())?;
            options = options.with_format(name, move |s: &str| re.is_match(s));
        }
        let validator = options.build(&schema).map_err(|e| e.to_string())?;
        Ok(Self { validator })
    }

    /// Reports the distinct instance locations (JSON Pointers, byte order) where
    /// at least one keyword failed. The crate yields leaf errors only, with
    /// `required`/`additionalProperties`/`uniqueItems` at the holding object.
    pub fn validate(&self, document: &Value) -> Validation {
        let paths: BTreeSet<String> = self
            .validator
            .iter_errors(document)
            .map(|e| e.instance_path().as_str().to_owned())
            .collect();
        Validation {
            valid: paths.is_empty(),
            error_count: paths.len(),
            error_paths: paths.into_iter().collect(),
        }
    }
}
