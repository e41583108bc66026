"""SkillServer: registered names only, validated arguments, caps, and skill errors as replies."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from agent.sandbox import protocol
from agent.sandbox.server import SandboxFault, SkillServer
from skills.errors import SkillError


class Pose(BaseModel):
    x: float
    y: float


class GraspFailed(SkillError):
    kind = "grasp_failed"


def place(brick: str, pose: Pose, yaw: float = 0.0) -> Pose:
    """Echo the pose."""
    return pose


def grasp(brick: str) -> None:
    """Always fails."""
    raise GraspFailed(f"could not grasp {brick}")


def broken() -> None:
    """A host bug."""
    raise KeyError("oops")


def _server(**kw: Any) -> SkillServer:
    return SkillServer({"place": place, "grasp": grasp, "broken": broken}, **kw)


def _call(server: SkillServer, method: str, params: dict[str, object], call_id: int = 1) -> dict[str, object]:
    line = protocol.encode(protocol.request(call_id, method, params))
    return json.loads(server.handle_line(line))


def test_valid_call_returns_jsonable_result_and_records_it() -> None:
    server = _server()
    reply = _call(server, "place", {"brick": "b1", "pose": {"x": 1, "y": "2.5"}})
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": {"x": 1.0, "y": 2.5}}
    assert server.calls[0].ok and server.calls[0].name == "place"


def test_stub_signatures_list_positional_names() -> None:
    assert _server().stub_signatures()["place"] == ["brick", "pose", "yaw"]


@pytest.mark.parametrize(
    "params",
    [{"brick": "b1"}, {"brick": "b1", "pose": {"x": "a", "y": 0}}, {"brick": "b1", "pose": {"x": 0, "y": 0}, "z": 1}],
)
def test_bad_arguments_come_back_as_invalid_arguments(params: dict[str, object]) -> None:
    reply = _call(_server(), "place", params)
    assert reply["error"]["data"]["kind"] == "invalid_arguments"  # type: ignore[index]


def test_skill_error_becomes_an_error_reply_with_its_kind() -> None:
    reply = _call(_server(), "grasp", {"brick": "b7"})
    assert reply["error"] == {"code": protocol.SKILL_ERROR, "message": "could not grasp b7", "data": {"kind": "grasp_failed"}}


def test_unknown_method_and_private_names_are_faults() -> None:
    with pytest.raises(SandboxFault) as info:
        _call(_server(), "__init__", {})
    assert info.value.outcome == "policy_violation"
    with pytest.raises(ValueError):
        SkillServer({"_secret": grasp})


def test_call_count_and_message_size_are_capped() -> None:
    server = _server(max_calls=2, max_message_bytes=1024)
    _call(server, "grasp", {"brick": "a"})
    _call(server, "grasp", {"brick": "a"})
    with pytest.raises(SandboxFault) as info:
        _call(server, "grasp", {"brick": "a"})
    assert info.value.outcome == "resource_limit"
    with pytest.raises(SandboxFault) as info:
        _call(_server(max_message_bytes=1024), "grasp", {"brick": "x" * 2000})
    assert info.value.outcome == "resource_limit"


def test_host_bug_stops_the_program_without_leaking_the_traceback() -> None:
    with pytest.raises(SandboxFault) as info:
        _call(_server(), "broken", {})
    assert info.value.outcome == "error"
    assert "oops" not in info.value.message and "KeyError" in (info.value.host_detail or "")


def test_malformed_lines_are_faults() -> None:
    with pytest.raises(SandboxFault):
        _server().handle_line(b"not json\n")
    with pytest.raises(SandboxFault):
        _server().handle_line(b'{"jsonrpc": "2.0", "id": "x", "method": "grasp"}\n')


def test_an_oversized_call_is_refused_at_the_boundary_with_a_typed_error_naming_the_limit() -> None:
    server = _server(max_argument_bytes=4096)
    reply = _call(server, "grasp", {"brick": "b" * 100_000})
    error = reply["error"]
    assert isinstance(error, dict) and error["data"] == {"kind": "argument_too_large"}
    assert "4096 bytes" in error["message"] and "max_argument_bytes" in error["message"]
    (call,) = server.calls  # recorded, but as a marker: the server never holds the argument
    assert call.error_kind == "argument_too_large" and len(json.dumps(call.args)) < 400


def test_recorded_results_and_errors_are_bounded() -> None:
    server = _server()
    _call(server, "place", {"brick": "b1", "pose": {"x": 1, "y": 2}, "yaw": 0.0})
    _call(server, "grasp", {"brick": "b" * 30_000})
    assert len(json.dumps(server.calls[1].args)) < 400
    assert server.calls[1].error is not None and len(server.calls[1].error) < 400
