"""validate_document: Draft 2020-12 validation with the contract's format definitions."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import ValidationError

# document.schema.json is a copy of servers/contract/document.schema.json (a test
# keeps them identical) so the package and the Docker context are this folder.
DOCUMENT_SCHEMA: dict[str, Any] = json.loads(resources.files(__package__).joinpath("document.schema.json").read_text())

# CONTRACT.md's formats replace the library's own so every runtime asserts the same
# rules; fullmatch because Python's `$` also matches before a final newline.
CONTRACT_FORMATS = {
    "uuid": re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
    "date": re.compile(r"[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"),
    "email": re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+"),
}


def _format_checker() -> FormatChecker:
    checker = FormatChecker(formats=())
    for name, pattern in CONTRACT_FORMATS.items():

        def check(value: object, pattern: re.Pattern[str] = pattern) -> bool:
            return not isinstance(value, str) or pattern.fullmatch(value) is not None

        checker.checks(name)(check)
    return checker


@lru_cache(maxsize=None)
def ecma_pattern(pattern: str) -> re.Pattern[str]:
    """Compiles a JSON Schema `pattern` (ECMA-262) so that `$` means what it means there.

    In ECMA-262 (no `m` flag) `$` matches only at the end of the string; Python's `$` also
    matches before a final "\\n", so `^[A-Z]{2}$` would accept "GB\\n". Each `$` outside a
    character class becomes `\\Z` (end of string only). The Java server does the same with `\\z`.
    The contract schema's patterns use no other syntax that differs (CONTRACT.md 4.3).
    """
    out = []
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])  # an escape (`\$` too) stays as written
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "$":
            ch = r"\Z"
        out.append(ch)
        i += 1
    return re.compile("".join(out))


def _pattern(validator, pattern, instance, schema):
    # jsonschema's own `pattern` keyword with ECMA-262's `$` (same check, same message).
    if validator.is_type(instance, "string") and not ecma_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


# Draft 2020-12 with the `pattern` keyword above; everything else is the library's.
ContractValidator = validators.extend(Draft202012Validator, {"pattern": _pattern})


class DocumentValidator:
    """Compiled once at start; `validate` reports the distinct failing locations."""

    def __init__(self, schema: dict[str, Any] = DOCUMENT_SCHEMA) -> None:
        ContractValidator.check_schema(schema)
        self._validator = ContractValidator(schema, format_checker=_format_checker())

    def validate(self, document: Any) -> dict[str, Any]:
        paths = set()
        for error in self._validator.iter_errors(document):
            for leaf in _leaves(error):
                paths.add(_json_pointer(leaf.absolute_path))
        # Sorting str compares code points, which equals UTF-8 byte order.
        ordered = sorted(paths)
        return {"valid": not ordered, "error_count": len(ordered), "error_paths": ordered}


def _leaves(error: ValidationError):
    # Errors of anyOf/oneOf/... carry their causes in `context`; only leaves count.
    if not error.context:
        yield error
        return
    for cause in error.context:
        yield from _leaves(cause)


def _json_pointer(path) -> str:
    return "".join("/" + str(token).replace("~", "~0").replace("/", "~1") for token in path)
