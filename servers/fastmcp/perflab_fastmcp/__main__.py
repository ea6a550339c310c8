"""Entry point: `python -m perflab_fastmcp` serves the FastAPI app with uvicorn (uvloop + httptools).

servers/python's runner does it: the contract's start line, SIGTERM handling, GET streams ended
when shutdown starts and the optional worker processes are the same for both Python servers.
"""

import sys

from perflab_server.__main__ import main

if __name__ == "__main__":
    sys.exit(main(app="perflab_fastmcp.app:create_app", name="fastmcp"))
