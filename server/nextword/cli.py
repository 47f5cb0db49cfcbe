"""The `nextword` command: one subcommand per module, imported only when used.

Each command module exposes `configure(parser)` and `run(args) -> int`. Keeping the
imports lazy keeps `nextword predict` from paying for the trainer, and the server
from paying for the evaluator.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback

from nextword.errors import CommandError
from nextword.process import leave

# command name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "predict": ("nextword.commands.predict", "print next-word candidates for the end of a text"),
    "serve": ("nextword.commands.serve", "run the language server"),
    "doctor": ("nextword.commands.doctor", "report platform, MLX backend, BLAS and model"),
    "prepare-corpus": (
        "nextword.commands.prepare_corpus",
        "build the cleaned training text from the sources",
    ),
    "train": ("nextword.commands.train", "train the tokenizer and the model"),
    "eval": (
        "nextword.commands.eval",
        "measure completion quality and latency (docs/EVAL.md)",
    ),
    "bench": ("nextword.commands.bench", "replay typing against a real server and report latency"),
    "figures": (
        "nextword.commands.figures",
        "regenerate every published figure: corpus, evaluations, bench, tables (docs/FIGURES.md)",
    ),
    "quantize": ("nextword.commands.quantize", "write a quantized copy of a model for Metal"),
    "learn": ("nextword.commands.learn", "learn your words from text files or folders (local)"),
    "forget": ("nextword.commands.learn", "delete what was learned (everything, or one workspace)"),
    "learning": ("nextword.commands.learn", "`learning status`: what is stored, never the words"),
}


def build_parser(argv: list[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="nextword", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = next((a for a in argv if not a.startswith("-")), None)
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        # Only the chosen command's module is imported; the others only list their help.
        if name == wanted:
            importlib.import_module(module_name).configure(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    module = importlib.import_module(COMMANDS[args.command][0])
    try:
        return int(module.run(args) or 0)
    except CommandError as err:
        print(f"nextword {args.command}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def entry() -> None:
    """The console script and `python -m nextword`: run a command, then leave at once.

    The process ends through `os._exit`, never through interpreter teardown. MLX used
    from a thread other than the main one (the server's inference worker, a model load)
    can abort the process while C++ static objects are destroyed at exit
    (`terminate called without an active exception`, ml-explore/mlx#3126), whatever
    that thread is doing by then. Nothing of ours needs teardown: commands close their
    own files, and `leave` flushes the standard streams and the logs first.
    """
    try:
        code = main()
    except SystemExit as stop:  # argparse's --help and usage errors
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
        if isinstance(stop.code, str):
            print(stop.code, file=sys.stderr)
    except BaseException:  # a bug: the traceback, then the same deterministic exit
        traceback.print_exc()
        code = 1
    leave(code)
