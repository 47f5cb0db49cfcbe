"""The VS Code extension's settings mirror the server's: one name, default and description.

`contributes.configuration` in vscode-extension/package.json must list every field of
`nextword.lsp.settings.Settings` as `nextword.<name>`, with its default and, as its
description, the field's trailing comment; src/settings.ts must send exactly those names.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re

from conftest import ROOT
from nextword.lsp.settings import LOG_LEVELS, Settings

EXTENSION = ROOT / "vscode-extension"
# Settings only the client reads: how to start the server, and whether to.
CLIENT_ONLY = {"nextword.enable", "nextword.server.command"}


def manifest_properties() -> dict[str, dict]:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    return manifest["contributes"]["configuration"]["properties"]


def field_comments() -> dict[str, str]:
    """Each Settings field's trailing comment, the one description of the setting."""
    source = inspect.getsource(Settings)
    return dict(re.findall(r"^\s+(\w+): [^#\n]+#\s*(.+)$", source, flags=re.MULTILINE))


def test_every_server_setting_is_contributed_with_its_default() -> None:
    properties = manifest_properties()
    fields = {f.name for f in dataclasses.fields(Settings)}
    assert set(properties) - CLIENT_ONLY == {f"nextword.{name}" for name in fields}
    defaults = Settings()
    for name in fields:
        default = getattr(defaults, name)
        expected = list(default) if isinstance(default, tuple) else default
        assert properties[f"nextword.{name}"]["default"] == expected, name


def test_descriptions_are_the_servers() -> None:
    properties = manifest_properties()
    comments = field_comments()
    assert set(comments) == {f.name for f in dataclasses.fields(Settings)}
    for name, comment in comments.items():
        assert properties[f"nextword.{name}"]["description"] == comment, name


def test_log_levels_are_an_enum() -> None:
    assert manifest_properties()["nextword.logLevel"]["enum"] == list(LOG_LEVELS)


def test_client_sends_exactly_the_server_settings() -> None:
    source = (EXTENSION / "src" / "settings.ts").read_text(encoding="utf-8")
    block = re.search(r"SERVER_SETTINGS = \[(.*?)\] as const", source, flags=re.DOTALL)
    assert block is not None
    names = re.findall(r'"(\w+)"', block.group(1))
    assert names == [f.name for f in dataclasses.fields(Settings)]
