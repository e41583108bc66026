"""The attack corpus: every program is contained with its expected outcome, the host is untouched, and
the same sandbox runs a normal program right after. Then the escape programs again with layers off."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.sandbox import Sandbox, SandboxLayers
from agent.sandbox.layers import detect
from tests.agent.sandbox.harness import METHODS, TEST_LIMITS, Attack, HostProbe, host_probe, load_attacks

ATTACKS = load_attacks()
# Raw escapes: programs that reach the host's kernel once past the Python layer; the OS layer named
# in their header must contain them with that layer switched off.
ESCAPES = [a for a in ATTACKS if a.os_layer]


def test_corpus_is_large_enough_and_labelled() -> None:
    assert len(ATTACKS) >= 80
    assert len(ESCAPES) >= 14
    assert all(a.layer for a in ATTACKS)
    # The unbound-format family of issue 13 is in the corpus, including its raw-escape form.
    assert sum(a.name.startswith("unbound_format") for a in ATTACKS) >= 4
    assert {"escape_unbound_format_os_write", "unbound_format_attributeerror_obj"} <= {a.name for a in ESCAPES}


@pytest.fixture(scope="module")
def probe() -> Iterator[HostProbe]:
    with host_probe() as p:
        yield p


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(TEST_LIMITS) as sb:
        yield sb


def _assert_survives(sandbox: Sandbox) -> None:
    after = sandbox.run("r = ping('alive')\nprint(r.payload, r.length)", METHODS)
    assert after.outcome == "ok", after
    assert after.stdout == "alive 5\n"


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_attack_is_contained(attack: Attack, sandbox: Sandbox, probe: HostProbe) -> None:
    result = sandbox.run(probe.render(attack.template), METHODS)
    assert result.outcome in attack.expect, (attack.description, result)
    assert probe.evidence(result.stdout) == [], attack.description
    assert "Traceback" not in result.message and "File \"" not in result.message
    if result.outcome != "timeout":
        assert result.line is None or result.line >= 1
    _assert_survives(sandbox)


# Layers switched off one at a time; where the prototype notes say the rest still hold, no escape
# program may leave evidence on the host. The restricted builtins go with the AST policy, since the
# policy is what keeps programs from reaching past the builtins table.
PROCESS_ONLY = {"ast_policy": False, "restricted_builtins": False}
LAYER_SETS = {
    "process_layers_only": SandboxLayers(**PROCESS_ONLY),
    "no_seccomp": SandboxLayers(**PROCESS_ONLY, seccomp=False),
    "no_bubblewrap": SandboxLayers(**PROCESS_ONLY, bubblewrap=False),
    "no_uid_drop": SandboxLayers(**PROCESS_ONLY, unprivileged_uid=False),
    "policy_only": SandboxLayers(bubblewrap=False, seccomp=False, unprivileged_uid=False, rlimits=False),
}


def _needs(layers: SandboxLayers) -> None:
    report = detect(layers).report
    if report.degraded():
        pytest.skip(f"layers unavailable on this machine: {report.degraded()}")


@pytest.mark.parametrize("config", sorted(LAYER_SETS))
def test_escapes_contained_with_a_layer_off(config: str, probe: HostProbe) -> None:
    layers = LAYER_SETS[config]
    _needs(layers)
    with Sandbox(TEST_LIMITS, layers) as sb:
        for attack in ESCAPES:
            result = sb.run(probe.render(attack.template), METHODS)
            # With the very layer that contains it switched off, an attack may succeed inside the
            # sandbox (executable memory, a raised rlimit): only what reaches the host counts then.
            own_layer_off = not getattr(layers, str(attack.os_layer), True)
            assert probe.evidence(result.stdout, host_only=own_layer_off) == [], (config, attack.name, result)
            _assert_survives(sb)


def test_positive_control_detects_an_escape(probe: HostProbe) -> None:
    """With every layer off an escape program does reach the host: the evidence checks are real."""
    layers = SandboxLayers(
        ast_policy=False, restricted_builtins=False, bubblewrap=False, seccomp=False, rlimits=False,
        unprivileged_uid=False,
    )
    attack = next(a for a in ESCAPES if a.name == "escape_write_host_file")
    with Sandbox(TEST_LIMITS, layers, prestart=False) as sb:
        result = sb.run(probe.render(attack.template), METHODS)
    try:
        assert result.outcome == "ok", result
        assert probe.evidence(result.stdout) == [f"host file {probe.marker} was created"]
    finally:
        probe.clear()
