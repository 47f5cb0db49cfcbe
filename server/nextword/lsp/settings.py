"""The server's settings: one typed schema, validated once, bad values fall back to defaults.

Settings reach the server as `initializationOptions`, through
`workspace/didChangeConfiguration` and, where the client supports it, from
`workspace/configuration` (section "nextword"). The camelCase names below are the
one spelling used everywhere (editor clients, README).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LOG_LEVELS = ("error", "warning", "info", "debug", "trace")
LEARNING_SCOPES = ("user", "workspace")

# Prose languages: there a popup at a plain space is welcome. In code, a popup on
# every space would let Enter accept a word when the user meant a newline, so there
# the word popup opens only once a word character is typed.
PROSE_LANGUAGES = (
    "plaintext",
    "markdown",
    "git-commit",
    "gitcommit",
    "restructuredtext",
    "latex",
    "tex",
    "org",
    "asciidoc",
    "text",
    "txt",  # Sublime Text LSP's id for plain text
    "commit",  # Sublime Text LSP's id for a Git commit message
    "mail",
)
# Languages where words are worth offering: prose, then code (comments, strings).
DEFAULT_LANGUAGES = PROSE_LANGUAGES + (
    "python",
    "javascript",
    "typescript",
    "javascriptreact",
    "typescriptreact",
    "js",  # eglot's id for js-mode
    "c++",  # eglot's id for c++-mode
    "rust",
    "go",
    "c",
    "cpp",
    "java",
    "lua",
    "ruby",
    "shellscript",
    "sh",
    "bash",
    "html",
    "yaml",
    "toml",
)

# Measured with `nextword bench` on a 2-core x86_64 CPU (MLX CPU backend, OpenBLAS, a
# training run beside it): a boundary decision takes ~7 ms (p50), ~17 ms (p95). At 10
# keys/s, 50 ms never holds a decision (boundaries come >= 100 ms apart); flat out it
# caps one document at ~20 decisions/s, and the round-trip p99 fell from 26 ms (0 ms)
# to 10 ms (50 ms). Below ~80 ms it stays out of the way of human typing.
DEFAULT_THROTTLE_MS = 50


@dataclass(frozen=True)
class Settings:
    """What a client may set; every field has a safe default."""

    model: str | None = None  # model directory; None = the bundled default
    chineseModel: str | None = None  # model for Chinese text; None = bundled, "" = none
    k: int = 5  # candidates per completion (1..50)
    temperature: float = 0.0  # 0 = rank by probability; > 0 samples the order (0..5)
    windowTokens: int = 128  # tokens of context before the cursor (16..512; 64-128 advised)
    throttleMs: int = DEFAULT_THROTTLE_MS  # at most one model decision per document per interval
    inline: bool = True  # serve textDocument/inlineCompletion (ghost text)
    languages: tuple[str, ...] = field(default=DEFAULT_LANGUAGES)  # languageIds served
    logLevel: str = "info"  # error | warning | info | debug | trace (trace logs text)
    learning: bool = False  # learn your words locally (off by default)
    learningScope: str = "user"  # where learned words are kept: user | workspace


# name -> (accepted types, check on the value, how the message describes a valid value)
_RULES: dict[str, tuple[tuple[type, ...], Any, str]] = {
    "model": ((str, type(None)), lambda v: True, "a directory path or null"),
    "chineseModel": ((str, type(None)), lambda v: True, 'a directory path, "" (none) or null'),
    "k": ((int,), lambda v: 1 <= v <= 50, "an integer from 1 to 50"),
    "temperature": ((int, float), lambda v: 0 <= v <= 5, "a number from 0 to 5"),
    "windowTokens": ((int,), lambda v: 16 <= v <= 512, "an integer from 16 to 512"),
    "throttleMs": ((int,), lambda v: 0 <= v <= 10_000, "an integer from 0 to 10000"),
    "inline": ((bool,), lambda v: True, "true or false"),
    "languages": (
        (list, tuple),
        lambda v: all(isinstance(x, str) for x in v),
        "a list of language ids",
    ),
    "logLevel": ((str,), lambda v: v in LOG_LEVELS, "one of " + ", ".join(LOG_LEVELS)),
    "learning": ((bool,), lambda v: True, "true or false"),
    "learningScope": ((str,), lambda v: v in LEARNING_SCOPES, '"user" or "workspace"'),
}


# Settings the editor clients keep for themselves arrive in the same "nextword"
# section (VS Code's `nextword.server.command`, the on/off toggle): not the server's
# business, and not an error.
CLIENT_SETTINGS = frozenset({"server", "enabled"})


def parse_settings(raw: Any, *, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """Validate a settings object from the client.

    Args:
        raw: a mapping of setting names to values (unknown names are reported).
        base: the settings to update; defaults to `Settings()`. Fields absent from
            `raw` keep their value in `base`; invalid ones fall back to the default.

    Returns:
        The settings to use and one message per problem, each naming the setting.
    """
    base = base or Settings()
    if raw is None:
        return base, []
    if not isinstance(raw, Mapping):
        return base, [f"nextword settings must be an object, not {type(raw).__name__}"]
    defaults = Settings()
    values: dict[str, Any] = {}
    errors: list[str] = []
    for name, value in raw.items():
        if name in CLIENT_SETTINGS:
            continue
        rule = _RULES.get(name)
        if rule is None:
            errors.append(f"unknown nextword setting `{name}` ignored")
            continue
        types_, check, expected = rule
        # bool is an int in Python; a JSON true must not pass as k = 1.
        wrong_type = not isinstance(value, types_) or (
            isinstance(value, bool) and bool not in types_
        )
        if wrong_type or not check(value):
            default = getattr(defaults, name)
            errors.append(
                f"nextword setting `{name}` = {value!r} is invalid: expected {expected}; "
                f"using the default {_show(default)}"
            )
            values[name] = default
            continue
        if name == "languages":
            value = tuple(value)
        elif name == "temperature":
            value = float(value)
        elif name == "model":
            value = value or None
        values[name] = value
    return dataclasses.replace(base, **values), errors


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(value) + "]"
    return "null" if value is None else repr(value)
