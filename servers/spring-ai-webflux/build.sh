#!/usr/bin/env bash
# The same build as servers/spring-ai's (its build.sh says what it does), in this folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../spring-ai/build.sh" "$here"
