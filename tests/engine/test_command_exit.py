"""Commands that used MLX end with the code they mean, their output flushed (issue 13).

They leave through `nextword.process.leave`, like the server (tests/server/test_exit.py):
no "terminate called" abort from MLX's teardown, and a usage error keeps argparse's 2.
"""

from __future__ import annotations

from helpers import nextword


def test_commands_end_cleanly_after_using_mlx() -> None:
    for args in (["predict", "The history of the "], ["doctor"]):
        done = nextword(*args, check=False)
        assert done.returncode == 0, (args, done.stderr[-500:])
        assert "terminate called" not in done.stderr
        assert done.stdout.strip(), args  # what it printed was flushed before leaving


def test_usage_errors_keep_their_exit_code() -> None:
    done = nextword("predict", "--no-such-flag", check=False)
    assert done.returncode == 2
    assert "usage:" in done.stderr
