#!/bin/sh
# The virtual environment with the pinned requirements (idempotent). Used by perflab.json and the Dockerfile.
# The tools' work is servers/python's package, found through PYTHONPATH (perflab.json) or copied (Dockerfile).
set -eu
python3 -m venv .venv
.venv/bin/pip install --disable-pip-version-check --no-input -q -r requirements.txt
