"""The server's own names (`nextword.lsp.names`) are spelled the same in every client.

Reads the string literals of the VS Code extension (vscode-extension/src/*.ts), the
Neovim plugin (neovim/lua/nextword/*.lua), the Emacs set-up (editors/emacs/*.el) and
the server (server/nextword/lsp/*.py): every `nextword/...` or `nextword.<name>` in
them must be a name the server knows, or one the client owns (a VS Code command or
setting, a Lua module); each client must use the names it needs; and the server and
the VS Code extension spell each name in one module only.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from helpers import ROOT
from nextword.lsp import names

KNOWN = set(names.ALL)
NAME = re.compile(r"\bnextword[./][A-Za-z]\w*(?:\.\w+)*")
EXTENSION = ROOT / "vscode-extension"
TS = sorted((EXTENSION / "src").glob("*.ts"))
LUA = sorted((ROOT / "neovim" / "lua" / "nextword").glob("*.lua"))
ELISP = sorted((ROOT / "editors" / "emacs").glob("*.el"))
LSP = sorted((ROOT / "server" / "nextword" / "lsp").glob("*.py"))

# Comments and string literals, in the order they come, so that a quote inside a
# comment or a comment marker inside a string is read as what it is.
TS_TOKENS = re.compile(
    r"//[^\n]*|/\*.*?\*/|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`[^`]*`", re.S
)
LUA_TOKENS = re.compile(r"--\[\[.*?\]\]|--[^\n]*|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'", re.S)
ELISP_TOKENS = re.compile(r";[^\n]*|\"(?:[^\"\\]|\\.)*\"", re.S)


def strings(path: Path, tokens: re.Pattern[str]) -> list[str]:
    """The string literals of a source file (their text, quotes dropped)."""
    found = tokens.findall(path.read_text(encoding="utf-8"))
    return [t[1:-1] for t in found if t[0] in "\"'`"]


def names_in(texts: list[str]) -> set[str]:
    return {name for text in texts for name in NAME.findall(text)}


def vscode_own() -> set[str]:
    """The extension's own ids: its commands, its settings (and their sections)."""
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    contributes = manifest["contributes"]
    own = {c["command"] for c in contributes["commands"]}
    for setting in contributes["configuration"]["properties"]:
        parts = setting.split(".")
        own |= {".".join(parts[:n]) for n in range(2, len(parts) + 1)}
    # The status bar item's id (status.ts); the executable on Windows (executable.ts).
    return own | {"nextword.status", "nextword.exe"}


def test_vscode_uses_the_servers_names() -> None:
    texts = {path.name: strings(path, TS_TOKENS) for path in TS}
    used = names_in([t for ts in texts.values() for t in ts])
    assert used <= KNOWN | vscode_own()
    needed = {
        names.STATS_REQUEST,
        names.LEARNING_STATUS_COMMAND,
        names.FORGET_COMMAND,
        names.STATE_NOTIFICATION,
    }
    assert needed <= used
    # One place: names.ts, as names.py on the server's side.
    for file, ts in texts.items():
        if file != "names.ts":
            assert not names_in(ts) & KNOWN, file
    assert names.STATE_CAPABILITY in texts["names.ts"]


def test_vscode_knows_the_model_states() -> None:
    source = (EXTENSION / "src" / "names.ts").read_text(encoding="utf-8")
    union = re.search(r"export type ModelState = ([^;]+);", source)
    assert union is not None
    assert re.findall(r'"(\w+)"', union.group(1)) == list(names.MODEL_STATES)


def test_neovim_uses_the_servers_names() -> None:
    modules = {f"nextword.{path.stem}" for path in LUA}  # require("nextword.config")
    used = names_in([t for path in LUA for t in strings(path, LUA_TOKENS)])
    assert used <= KNOWN | modules
    assert {names.STATS_REQUEST, names.LEARNING_STATUS_COMMAND, names.FORGET_COMMAND} <= used


def test_emacs_uses_the_servers_names() -> None:
    used = set()
    for path in ELISP:
        source = path.read_text(encoding="utf-8")
        used |= names_in(strings(path, ELISP_TOKENS))
        # A method is a keyword in code: (jsonrpc-request server :nextword/stats nil).
        code = ELISP_TOKENS.sub("", source)
        used |= {m[1:] for m in re.findall(r":nextword[./]\w+", code)}
    assert used <= KNOWN
    assert names.STATS_REQUEST in used


def test_the_server_spells_its_names_in_names_py_only() -> None:
    for path in LSP:
        if path.name == "names.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        texts = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ]
        assert not names_in(texts) & KNOWN, path.name
