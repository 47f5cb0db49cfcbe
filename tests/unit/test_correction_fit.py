"""The correction gate's fit (training/correction_fit.py) on masses made up to show it."""

from nextword.engine.corrections import CorrectionGate, Masses
from nextword.training.correction_fit import Collected, clean_share, corrected, record


def _found(names: int, typo: Masses) -> Collected:
    """1,000 clean prefixes, `names` of them a name no list knows (nothing known starts
    it, a far-fetched correction's mass), and one misspelling with `typo`'s masses."""
    found = Collected()
    found.clean["dev"] = [Masses(0.0, 1e-9, True)] * names
    found.prefixes["dev"] = 1000
    found.typos["dev"] = [({1: (False, [typo]), 3: (False, [typo])}, "synthetic")]
    return found


def test_the_name_floor_quiets_names_and_keeps_the_mistake() -> None:
    # The names and the misspelling weigh the same (A = 0, B = 1e-9): only the capital
    # inside a sentence tells them apart, and the fit finds the floor that does.
    found = _found(10, Masses(0.0, 1e-9, False))
    fit = record(found, 0.0025, [], 1000)
    assert fit["name"] > 0 and fit["unknown"] == 0
    gate = fit["fitted"]
    assert gate["clean_share"] <= 0.0025 and gate["all_correction@3"] == 1.0


def test_the_stored_threshold_keeps_the_fitted_clean_share() -> None:
    # The fitted threshold sits just above a clean prefix's share; stored rounded, it
    # must not open that prefix again.
    found = _found(10, Masses(0.0, 1e-9, False))
    fit = record(found, 0.0025, [], 1000)
    stored = CorrectionGate(fit["threshold"], fit["unknown"], fit["name"])
    assert clean_share(found, stored) == fit["fitted"]["clean_share"]
    assert corrected(found, stored, 3) == fit["fitted"]["all_correction@3"]
