"""The training mixes (training/mixes.py): named and explicit shares, and the defaults."""

from __future__ import annotations

import pytest

from nextword.errors import CommandError
from nextword.training.mixes import default_mix, mix_shares, mix_weights


def test_each_language_has_its_default_mix() -> None:
    assert default_mix(["chat", "email", "wiki"]) == "chat25"
    assert default_mix(["peoples_daily", "hsk"]) == "zh-hsk10"
    assert default_mix(["peoples_daily", "fortunes_zh"]) == "sqrt"


def test_explicit_shares_are_read_and_normalised_over_the_sources() -> None:
    assert mix_shares("peoples_daily=90, hsk=10") == {"peoples_daily": 90.0, "hsk": 10.0}
    weights = mix_weights("zh-hsk10", {"peoples_daily": 1_000, "hsk": 10})
    assert weights == pytest.approx({"peoples_daily": 0.9, "hsk": 0.1})
    with pytest.raises(CommandError, match="expected a mix name"):
        mix_shares("hsk:10")
    with pytest.raises(CommandError, match="no share to hsk"):
        mix_weights("peoples_daily=1", {"peoples_daily": 5, "hsk": 5})
