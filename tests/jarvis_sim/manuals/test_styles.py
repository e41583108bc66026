"""The style registry: three styles at least, and an unknown name lists the valid ones."""

from __future__ import annotations

import pytest

from jarvis_sim.manuals import UnknownStyleError, get_style, manual_styles


def test_the_three_required_styles_are_registered() -> None:
    assert {"booklet", "shaded", "photo"} <= set(manual_styles())
    assert get_style("photo").lighting.shadows
    assert get_style("photo").table == "wood"
    assert get_style("booklet").line_art


def test_unknown_style_lists_the_valid_ones() -> None:
    with pytest.raises(UnknownStyleError) as err:
        get_style("watercolour")
    message = str(err.value)
    assert "watercolour" in message
    for name in manual_styles():
        assert name in message
