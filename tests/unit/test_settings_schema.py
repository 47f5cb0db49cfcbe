"""One settings schema (`nextword.lsp.settings.SCHEMA`) and what comes from it.

Validation is derived from it (`parse_settings`); the README's settings table is
written from it here and must be the README's; the Neovim defaults
(neovim/lua/nextword/config.lua, read as text: tests/editors/test_neovim.py asks a
real nvim the same) and the Emacs docs use its names and defaults. VS Code's
package.json: test_vscode_settings.py.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from typing import Any

import pytest

from helpers import ROOT
from nextword.lsp.settings import CLIENT_SETTINGS, SCHEMA, Settings, SettingSpec, parse_settings

NAMES = [spec.name for spec in SCHEMA]
LUA_CONFIG = ROOT / "neovim" / "lua" / "nextword" / "config.lua"
# config.server_settings() sends these from other options: `inline` from the plugin's
# own option, `languages` (nil by default) from `filetypes`.
DERIVED_IN_LUA = {"inline", "languages"}


def between(text: str, start: str, end: str) -> str:
    """The text of `text` after the first `start`, up to the next `end`."""
    return text.split(start, 1)[1].split(end, 1)[0]


# ---------------------------------------------------------------------------- the schema


def test_the_schema_is_the_settings_fields() -> None:
    assert [f.name for f in dataclasses.fields(Settings)] == NAMES
    for spec in SCHEMA:
        assert spec.default == getattr(Settings(), spec.name)
        assert spec.rule.doc and "\n" not in spec.rule.doc, spec.name
        assert spec.accepts, spec.name  # every setting can say what it accepts


def json_value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@pytest.mark.parametrize("spec", SCHEMA, ids=NAMES)
def test_every_default_passes_its_own_rule(spec: SettingSpec) -> None:
    assert spec.valid(json_value(spec.default))
    assert parse_settings({spec.name: json_value(spec.default)}) == (Settings(), [])


# --------------------------------------------------------------------- parse_settings


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("k", "five"),
        ("k", True),  # a JSON true is not 1
        ("k", 0),
        ("k", 51),
        ("k", 2.5),
        ("temperature", [1]),
        ("temperature", 5.5),
        ("temperature", math.nan),
        ("windowTokens", 10**9),
        ("throttleMs", -5),
        ("inline", 1),
        ("languages", "plaintext"),
        ("languages", ["plaintext", 1]),
        ("logLevel", "loud"),
        ("learning", "yes"),
        ("learningScope", "everywhere"),
        ("model", 3),
        ("chineseModel", False),
    ],
)
def test_a_bad_value_is_reported_in_one_line_and_the_default_used(name: str, value: Any) -> None:
    base = Settings(k=7, logLevel="debug")
    settings, [message] = parse_settings({name: value}, base=base)
    assert getattr(settings, name) == getattr(Settings(), name)
    assert message.startswith(f"nextword setting `{name}` = ") and "\n" not in message
    assert "is invalid: expected " in message and "using the default " in message
    others = [n for n in NAMES if n != name]
    assert all(getattr(settings, n) == getattr(base, n) for n in others)


def test_what_a_message_says_is_valid() -> None:
    accepts = {spec.name: spec.accepts for spec in SCHEMA}
    assert accepts["k"] == "an integer from 1 to 50"
    assert accepts["temperature"] == "a number from 0 to 5"
    assert accepts["inline"] == "true or false"
    assert accepts["learningScope"] == '"user" or "workspace"'
    assert accepts["logLevel"] == '"error", "warning", "info", "debug" or "trace"'
    [message] = parse_settings({"k": "five"})[1]
    assert message == (
        "nextword setting `k` = 'five' is invalid: expected an integer from 1 to 50; "
        "using the default 5"
    )


def test_good_values_are_kept_as_the_settings_hold_them() -> None:
    raw = {"k": 3, "temperature": 1, "languages": ["markdown"], "model": "", "chineseModel": ""}
    settings, errors = parse_settings(raw)
    assert errors == []
    assert settings.k == 3 and settings.languages == ("markdown",)
    assert settings.temperature == 1.0 and isinstance(settings.temperature, float)
    assert settings.model is None  # VS Code clears a path to "": the bundled model
    assert settings.chineseModel == ""  # "" here means no Chinese model


def test_unknown_names_are_reported_and_the_clients_own_ignored() -> None:
    raw = {"noSuchSetting": 1, **{name: {} for name in CLIENT_SETTINGS}}
    assert parse_settings(raw)[1] == ["unknown nextword setting `noSuchSetting` ignored"]


def test_settings_that_are_no_object_change_nothing() -> None:
    base = Settings(k=2)
    assert parse_settings(None, base=base) == (base, [])
    assert parse_settings("k=3", base=base) == (
        base,
        ["nextword settings must be an object, not str"],
    )


# ------------------------------------------------------------------------ the README


def shown_default(spec: SettingSpec) -> str:
    if spec.rule.shown_default is not None:
        return spec.rule.shown_default
    value = spec.default
    if value is None or isinstance(value, bool):
        return f"`{json.dumps(value)}`"
    return f"`{value:g}`" if isinstance(value, float) else f"`{value}`"


def readme_table() -> str:
    """The README's settings table, as the schema writes it."""
    rows = ["| setting | default | meaning |", "| --- | --- | --- |"]
    rows += [f"| `{s.name}` | {shown_default(s)} | {s.rule.doc} |" for s in SCHEMA]
    return "\n".join(rows) + "\n"


def test_the_readme_table_is_the_schemas() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # The section under the Settings heading, to the next heading of any level.
    section = re.split(r"\n#+ Settings\n", readme, maxsplit=1)[1]
    section = re.split(r"\n#+ ", section, maxsplit=1)[0]
    table = "".join(line + "\n" for line in section.splitlines() if line.startswith("|"))
    assert table == readme_table(), "README.md's settings table should read:\n" + readme_table()


def test_every_in_page_link_of_a_doc_leads_somewhere() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    anchors = {
        re.sub(r"[^\w\- ]", "", title).strip().lower().replace(" ", "-")
        for title in re.findall(r"^#+ (.+)$", readme, flags=re.MULTILINE)
    }
    for spec in SCHEMA:
        for anchor in re.findall(r"\]\(#([^)]+)\)", spec.rule.doc):
            assert anchor in anchors, (spec.name, anchor)


# ------------------------------------------------------------------------ Neovim


def lua_defaults() -> dict[str, str]:
    """`settings` of config.lua's defaults: name -> its Lua value, as written."""
    source = LUA_CONFIG.read_text(encoding="utf-8")
    block = between(source, "  settings = { --", "\n  },")
    # Every default has a trailing comment (the plugin's own documentation).
    return dict(re.findall(r"^\s+(\w+) = (.+?), -- \S", block, flags=re.MULTILINE))


def lua_value(text: str) -> Any:
    if text == "nil":
        return None
    if text in ("true", "false"):
        return text == "true"
    return json.loads(text)  # a number or a double-quoted string


def test_neovim_defaults_are_the_schemas() -> None:
    lua = lua_defaults()
    assert list(lua) == [n for n in NAMES if n != "inline"]  # the schema's order, too
    for name, text in lua.items():
        if name in DERIVED_IN_LUA:
            assert text == "nil", name
        else:
            assert lua_value(text) == getattr(Settings(), name), name


def test_neovim_annotations_name_the_settings_and_their_choices() -> None:
    source = LUA_CONFIG.read_text(encoding="utf-8")
    block = between(source, "---@class nextword.Settings\n", "\n\n")
    fields = dict(re.findall(r"^---@field (\w+)\? (\S+)", block, flags=re.MULTILINE))
    assert list(fields) == list(lua_defaults())
    for spec in SCHEMA:
        if spec.rule.choices:
            assert fields[spec.name].split("|") == [f'"{c}"' for c in spec.rule.choices]


def test_the_neovim_readme_shows_the_defaults_of_config_lua() -> None:
    readme = (ROOT / "neovim" / "README.md").read_text(encoding="utf-8")
    source = LUA_CONFIG.read_text(encoding="utf-8")
    start, end = "  settings = { --", "\n  },"
    assert between(readme, start, end) == between(source, start, end)


# ------------------------------------------------------------------------- Emacs


def test_the_emacs_docs_name_every_setting() -> None:
    source = (ROOT / "editors" / "emacs" / "nextword.el").read_text(encoding="utf-8")
    doc = between(source, "(defcustom nextword-initialization-options", "\n  :type")
    names = between(doc, "Names are", "Lists are")  # not the section, `:nextword'
    assert re.findall(r"`:(\w+)'", names) == NAMES
