"""The client's tests: unit tests of its pure parts, and tests against a live service.

The live tests need ``WORKGRAPH_URL`` and ``WORKGRAPH_ADMIN_TOKEN`` (an admin token of a
service with access control on, its reaper running); without them they are skipped. The
project's build runs them all against a service of its own (``PythonClientTests``).
"""

import logging
import os
import sys

# Run from a checkout without installing: the package's sources come first.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

# The runtime's warnings about leases lost and handlers failed are what many tests provoke:
# shown from WORKGRAPH_TEST_LOG=WARNING (or INFO, DEBUG) on.
logging.basicConfig(
    level=os.environ.get("WORKGRAPH_TEST_LOG", "ERROR"),
    format="%(asctime)s %(levelname)s [%(threadName)s] %(name)s: %(message)s",
)
