"""The VS Code extension's settings are the server's schema: names, types, defaults, ranges.

`contributes.configuration` in vscode-extension/package.json must list every setting
of `nextword.lsp.settings.SCHEMA` as `nextword.<name>`, with the JSON type, default,
range or choices the schema gives and, as its Markdown description, the setting's doc
(less the README's links within its own page); the other properties are the client's
own settings, which the server ignores; src/settings.ts sends exactly the server's.
"""

from __future__ import annotations

import json
import re
from typing import Any

from helpers import ROOT
from nextword.lsp.settings import CLIENT_SETTINGS, SCHEMA, SettingSpec

EXTENSION = ROOT / "vscode-extension"
JSON_TYPES = {str: "string", int: "integer", bool: "boolean", type(None): "null"}
IN_PAGE_LINK = re.compile(r" ?\(\[[^\]]*\]\(#[^)]*\)\)")  # " ([Chinese](#chinese))"
# VS Code's own keys: where it reads a setting from (learning: user settings only).
VSCODE_ONLY = {"scope"}


def manifest_properties() -> dict[str, dict[str, Any]]:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    return manifest["contributes"]["configuration"]["properties"]


def contributed(spec: SettingSpec) -> dict[str, Any]:
    """The package.json property the schema makes of a setting."""
    if spec.item is not None:
        out: dict[str, Any] = {"type": "array", "items": {"type": JSON_TYPES[spec.item]}}
    elif float in spec.types:
        out = {"type": "number"}
    else:
        kinds = [JSON_TYPES[t] for t in spec.types]
        out = {"type": kinds[0] if len(kinds) == 1 else kinds}
    out["default"] = list(spec.default) if isinstance(spec.default, tuple) else spec.default
    rule = spec.rule
    if rule.minimum is not None:
        out["minimum"] = rule.minimum
    if rule.maximum is not None:
        out["maximum"] = rule.maximum
    if rule.choices:
        out["enum"] = list(rule.choices)
    out["markdownDescription"] = IN_PAGE_LINK.sub("", rule.doc)
    return out


def test_every_server_setting_is_contributed_as_the_schema_says() -> None:
    properties = manifest_properties()
    for spec in SCHEMA:
        prop = properties[f"nextword.{spec.name}"]
        assert {k: v for k, v in prop.items() if k not in VSCODE_ONLY} == contributed(spec)


def test_the_other_settings_are_the_ones_the_server_leaves_to_the_client() -> None:
    others = set(manifest_properties()) - {f"nextword.{spec.name}" for spec in SCHEMA}
    # `nextword.server.command` reaches the server (if at all) as {"server": {...}}.
    assert {name.split(".")[1] for name in others} == CLIENT_SETTINGS


def test_client_sends_exactly_the_server_settings() -> None:
    source = (EXTENSION / "src" / "settings.ts").read_text(encoding="utf-8")
    block = re.search(r"SERVER_SETTINGS = \[(.*?)\] as const", source, flags=re.DOTALL)
    assert block is not None
    names = re.findall(r'"(\w+)"', block.group(1))
    assert names == [spec.name for spec in SCHEMA]
