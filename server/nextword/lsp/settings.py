"""The server's settings: one typed schema, validated once, bad values fall back to defaults.

Settings reach the server as `initializationOptions`, through
`workspace/didChangeConfiguration` and, where the client supports it, from
`workspace/configuration` (section "nextword"). The camelCase names below are the
one spelling used everywhere (editor clients, README).

Each setting is written once, as a field of `Settings`: its name, its type (the
annotation), its default, and with `setting(...)` its range or choices and its doc.
`SCHEMA` reads them back; validation comes from it, and the tests derive the README's
settings table and check VS Code's `contributes.configuration` and the Neovim
defaults against it (tests/unit/test_settings_schema.py, test_vscode_settings.py).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from nextword.lsp.logs import LEVELS

T = TypeVar("T")

LOG_LEVELS = tuple(LEVELS)
LEARNING_SCOPES = ("user", "workspace")
CORRECTIONS = ("prose", "always", "off")

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
class Rule:
    """What a setting accepts beyond its type, and what it is for."""

    doc: str  # one line of Markdown: the README's table; VS Code's description, links dropped
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    # How an error message describes a valid value, where the type and range do not say it.
    accepts: str | None = None
    # "" means null: VS Code's settings editor clears a path to "", not to null.
    empty_is_null: bool = False
    # How the README shows a default too long for its table.
    shown_default: str | None = None


_RULE = "rule"  # the key of a field's Rule in its metadata


def setting(
    default: T,
    doc: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    choices: tuple[str, ...] = (),
    accepts: str | None = None,
    empty_is_null: bool = False,
    shown_default: str | None = None,
) -> T:
    """A `Settings` field: its default, and the rule the schema reads back."""
    rule = Rule(doc, minimum, maximum, choices, accepts, empty_is_null, shown_default)
    return dataclasses.field(default=default, metadata={_RULE: rule})


@dataclass(frozen=True)
class Settings:
    """What a client may set; every field has a safe default."""

    model: str | None = setting(
        None,
        "model directory; `null` is the bundled model",
        accepts="a directory path or null",
        empty_is_null=True,
    )
    chineseModel: str | None = setting(
        None,
        'model for Chinese text; `null` is the bundled one, `""` none ([Chinese](#chinese))',
        accepts='a directory path, "" (none) or null',
    )
    k: int = setting(5, "candidates per completion (1-50)", minimum=1, maximum=50)
    temperature: float = setting(
        0.0, "0 ranks by probability; above 0 samples the order", minimum=0, maximum=5
    )
    windowTokens: int = setting(
        128, "tokens of context the model sees (64-128 advised)", minimum=16, maximum=512
    )
    throttleMs: int = setting(
        DEFAULT_THROTTLE_MS,
        "at most one model decision per document per interval",
        minimum=0,
        maximum=10_000,
    )
    inline: bool = setting(True, "serve inline completions (ghost text)")
    phraseWords: int = setting(
        4,
        "most words ghost text offers as a phrase; 0 switches phrases off ([Phrases](#phrases))",
        minimum=0,
        maximum=8,
    )
    speculate: bool = setting(
        True,
        "decide the next word boundary while a likely word is still being typed "
        "([Phrases](#phrases))",
    )
    # Off in code by default: the server cannot tell a comment from code, and there the
    # word typed is often an identifier (`recv`, `ctx`, `hdr`) that no dictionary knows.
    corrections: str = setting(
        "prose",
        "offer the intended word for a misspelled prefix: `prose` (prose languages only), "
        "`always` (code too) or `off` ([Corrections](#corrections))",
        choices=CORRECTIONS,
    )
    blockOffensiveWords: bool = setting(
        True,
        "never offer an offensive word you have not written in the document or learned "
        "([Offensive words](#offensive-words))",
    )
    languages: tuple[str, ...] = setting(
        DEFAULT_LANGUAGES,
        "language ids to serve",
        accepts="a list of language ids",
        shown_default="prose and common programming languages",
    )
    logLevel: str = setting(
        "info",
        "`error`, `warning`, `info`, `debug`, `trace`; only `trace` logs document text",
        choices=LOG_LEVELS,
    )
    learning: bool = setting(
        False,
        "learn your words locally ([below](#learning-your-words)); "
        "VS Code takes it from user settings only",
    )
    learningScope: str = setting(
        "user",
        "where learned words are kept: `user` (one store) or `workspace` (one per workspace root)",
        choices=LEARNING_SCOPES,
    )

    def corrects(self, language_id: str) -> bool:
        """Whether completions in a document of `language_id` may offer corrections."""
        if self.corrections == "prose":
            return language_id in PROSE_LANGUAGES
        return self.corrections == "always"


@dataclass(frozen=True)
class SettingSpec:
    """One setting as the schema has it: read from a `Settings` field, never written."""

    name: str
    types: tuple[type, ...]  # the Python types a JSON value of it may have
    item: type | None  # a list's item type
    default: Any
    rule: Rule

    @property
    def accepts(self) -> str:
        """A valid value, as an error message says it."""
        rule = self.rule
        if rule.accepts is not None:
            return rule.accepts
        if rule.choices:
            quoted = [f'"{c}"' for c in rule.choices]
            return ", ".join(quoted[:-1]) + " or " + quoted[-1]
        if self.types == (bool,):
            return "true or false"
        kind = "an integer" if self.types == (int,) else "a number"
        return f"{kind} from {rule.minimum:g} to {rule.maximum:g}"

    def valid(self, value: Any) -> bool:
        if not self._typed(value):
            return False
        rule = self.rule
        if self.item is not None:
            return all(isinstance(x, self.item) for x in value)
        if rule.choices:
            return value in rule.choices
        # Written as "inside", not "not outside": NaN (Python's JSON reads it) is neither.
        above = rule.minimum is None or rule.minimum <= value
        return above and (rule.maximum is None or value <= rule.maximum)

    def _typed(self, value: Any) -> bool:
        # bool is an int in Python; a JSON true must not pass as k = 1.
        wrong_bool = isinstance(value, bool) and bool not in self.types
        return isinstance(value, self.types) and not wrong_bool

    def convert(self, value: Any) -> Any:
        """A valid JSON value as the `Settings` field holds it."""
        if self.item is not None:
            return tuple(value)
        if float in self.types:
            return float(value)
        if self.rule.empty_is_null and value == "":
            return None
        return value


def _spec(f: dataclasses.Field[Any], hint: Any) -> SettingSpec:
    item = None
    if typing.get_origin(hint) is tuple:  # tuple[str, ...]: a JSON list
        accepted: tuple[type, ...] = (list, tuple)
        item = typing.get_args(hint)[0]
    elif isinstance(hint, types.UnionType):  # str | None
        accepted = typing.get_args(hint)
    elif hint is float:
        accepted = (int, float)  # JSON has one kind of number
    else:
        accepted = (hint,)
    return SettingSpec(f.name, accepted, item, f.default, f.metadata[_RULE])


def _schema() -> tuple[SettingSpec, ...]:
    hints = typing.get_type_hints(Settings)
    return tuple(_spec(f, hints[f.name]) for f in dataclasses.fields(Settings))


SCHEMA = _schema()  # in the fields' order, the order clients and the README list them
_BY_NAME = {spec.name: spec for spec in SCHEMA}


# Settings the editor clients keep for themselves arrive in the same "nextword"
# section (VS Code's `nextword.enable` and `nextword.server.command`): not the
# server's business, and not an error.
CLIENT_SETTINGS = frozenset({"enable", "server"})


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
    values: dict[str, Any] = {}
    errors: list[str] = []
    for name, value in raw.items():
        if name in CLIENT_SETTINGS:
            continue
        spec = _BY_NAME.get(name)
        if spec is None:
            errors.append(f"unknown nextword setting `{name}` ignored")
        elif spec.valid(value):
            values[name] = spec.convert(value)
        else:
            errors.append(
                f"nextword setting `{name}` = {value!r} is invalid: expected {spec.accepts}; "
                f"using the default {_show(spec.default)}"
            )
            values[name] = spec.default
    return dataclasses.replace(base, **values), errors


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(value) + "]"
    return "null" if value is None else repr(value)
