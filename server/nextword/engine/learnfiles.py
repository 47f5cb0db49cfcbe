"""Where the personal stores (personal.py) live on disk, and how their files are
written and deleted: the user's data directory only, and nothing else.

    <data>/learning/user.json                       the user's store
    <data>/learning/workspaces/<sha256(root)>.json  one per workspace, when asked
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path

DATA_DIR_ENV = "NEXTWORD_DATA_DIR"  # overrides the data directory (tests, portable setups)


def data_dir() -> Path:
    """The user's data directory for nextword (platformdirs), or $NEXTWORD_DATA_DIR."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_data_dir("nextword", appauthor=False))


def learning_dir() -> Path:
    return data_dir() / "learning"


def user_path() -> Path:
    return learning_dir() / "user.json"


def workspace_uri(root: str) -> str:
    """A workspace root as a URI: a path becomes file://, a URI is kept (no trailing /)."""
    if "://" not in root:
        root = Path(root).expanduser().resolve().as_uri()
    return root.rstrip("/") if not root.endswith(":///") else root


def workspace_path(root: str) -> Path:
    """The store of one workspace, named by a hash of its root URI (no path on disk)."""
    digest = hashlib.sha256(workspace_uri(root).encode("utf-8")).hexdigest()[:16]
    return learning_dir() / "workspaces" / f"{digest}.json"


def store_paths() -> list[Path]:
    """The stores on disk: the user's, then each workspace's."""
    paths = [user_path(), *sorted((learning_dir() / "workspaces").glob("*.json"))]
    return [p for p in paths if p.exists()]


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` so that a crash leaves the old file or the new one.

    The bytes go to a temporary file in the same directory (a rename is atomic only
    within one file system), reach the disk (fsync) before the rename, and the rename
    reaches it too (fsync of the directory).
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def stamp(path: Path) -> tuple[int, int] | None:
    """When and how big the file was last written (None: no file): another process
    saving a store changes it."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def forget(workspace: str | None = None) -> list[str]:
    """Delete one workspace's store, or (None) everything learned; the paths removed.

    Leftovers go too: temporary files of an interrupted save, stores moved aside as
    corrupt.
    """
    if workspace is not None:
        path = workspace_path(workspace)
        candidates = [path, path.with_name(path.name + ".corrupt")]
        candidates += path.parent.glob(f".{path.name}.*.tmp") if path.parent.exists() else []
    else:
        root = learning_dir()
        candidates = [p for p in root.rglob("*") if p.is_file()] if root.exists() else []
    removed = []
    for path in candidates:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(str(path))
    if workspace is None:
        root = learning_dir()
        for directory in sorted(root.rglob("*"), reverse=True) if root.exists() else []:
            with contextlib.suppress(OSError):
                directory.rmdir()
        with contextlib.suppress(OSError):
            root.rmdir()
    return removed
