"""Fuzz the REST API from its own OpenAPI schema (schemathesis): whatever the input, never a 5xx.

The app is built at import (schemathesis parametrizes from a loaded schema) in a temporary data
directory, without worker processes: submissions are validated and queued, which is what the fuzz is for.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from agent.server.app import create_app
from tests.agent.server.conftest import make_settings

os.environ.setdefault("JARVIS_PLUGINS", "tests.fakes.quiz_family")
import tests.fakes.quiz_family  # noqa: F401

_DATA = Path(tempfile.mkdtemp(prefix="jarvis-fuzz-"))
atexit.register(shutil.rmtree, _DATA, ignore_errors=True)
# max_interactive=0: an interactive assembly episode would start a simulator per example.
APP = create_app(make_settings(_DATA, workers=0, max_interactive=0, max_concurrent_per_token=1000),
                 start_workers=False)
# Rendering manuals and observations is the simulator's work (tested with the renderer), not the API's.
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).exclude(path_regex=r"(manual/\{step\}|observation)\.png$")


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_errors(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])
