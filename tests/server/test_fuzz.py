"""The protocol fuzzer (tests/lsp_fuzz.py) against the real server, a short run per seed.

CI sends a few thousand messages; the nightly run (`python tests/lsp_fuzz.py
--messages 20000 --seed N`) sends more. Either way the checks are the same: every
request answered as expected, the server's copy of every document equal to the
client's after every edit, real candidates in a clean document at the end, exit 0.
"""

from __future__ import annotations

import pytest

import lsp_fuzz
from nextword.engine.words import is_word


@pytest.mark.parametrize("seed", [11, 12])
def test_fuzzed_traffic_leaves_the_server_serving(seed: int) -> None:
    figures = lsp_fuzz.run(2000, seed, huge=1)
    assert figures["messages"] >= 2000
    assert figures["huge_documents"] == 1
    # Each kind of traffic was really sent.
    for kind in ("edit", "edit-hostile", "edit-unopened", "garbage", "bad-request", "settings"):
        assert figures["sent"].get(kind, 0) > 0, kind
    words = figures["clean_candidates"]
    assert words and all(is_word(w) for w in words)
    assert figures["exit_code"] == 0
