"""Isolation of a process agent from the harness (issue 41, docs/guarantees.md "Process agents").

A process agent is a program the benchmark does not trust. Started as a plain child, it runs as the
harness's user: `/proc/<harness>/environ` shows the harness's API keys, `/proc/<harness>/cwd` leads to
the task files, and it may signal the harness. Where the platform allows, the agent runs instead in:

- a new PID namespace with its own `/proc` (`unshare --pid --fork --mount-proc`): the harness and every
  other process of the machine are not there to read (`/proc/<pid>/environ`, `cwd`, `fd`) or to signal;
  it is killed with its whole namespace when the harness kills it (`--kill-child`);
- a new mount namespace where the benchmark's own directories (`hidden_paths`: the task catalog's
  directory, the run directories, the catalog repository's git data) are covered by an empty tmpfs;
- no capabilities at all (`setpriv --bounding-set=-all --inh-caps=-all --no-new-privs`): it cannot
  unmount the covers, mount another `/proc`, enter another namespace or raise its privileges again;
- for a harness that is not root, a user namespace too (`--user --map-root-user`), which is what lets an
  unprivileged user create the other namespaces.

`probe()` checks, once per process, that all of this actually holds on this machine (a real isolated
child looks for the harness's `/proc` entry, signals it, and reads its own capabilities and a covered
directory). Where it does not (no `unshare`/`setpriv`, namespaces refused by a container's seccomp policy,
macOS), a process agent is refused with a sentence saying why, unless the user runs it unisolated on
purpose (`--agent-unisolated`).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

COVER_SCRIPT = (
    'while [ "$1" != -- ]; do mount -t tmpfs -o size=16k,mode=0555 crmbench-hidden "$1" || exit 125; shift; done; shift; unset PWD OLDPWD; exec "$@"'
)
"""Run inside the new mount namespace (still privileged there): cover each hidden directory, then become
the agent. `exit 125` when a cover fails: the agent never runs uncovered."""
DROP_PRIVILEGES = ("setpriv", "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all", "--")
PROBE_SCRIPT = (
    'h="$1"; d="$2"; '
    '[ ! -e "/proc/$h" ] || { echo "the harness (pid $h) is visible in /proc"; exit 1; }; '
    'kill -0 "$h" 2>/dev/null && { echo "the harness (pid $h) can be signalled"; exit 1; }; '
    '[ -z "$(ls -A "$d")" ] || { echo "a hidden directory is readable"; exit 1; }; '
    'umount "$d" 2>/dev/null && { echo "a cover can be removed"; exit 1; }; '
    'grep -Eq "^CapEff:[[:space:]]*0+$" /proc/self/status || { echo "the agent keeps capabilities"; exit 1; }; '
    "echo isolated"
)


class IsolationUnavailable(RuntimeError):
    """This machine cannot isolate a process agent; the sentence says why."""


@dataclass(frozen=True)
class Isolation:
    """How to start an isolated agent here: the namespace prefix (for root or an unprivileged user)."""

    namespaces: tuple[str, ...]
    as_root: bool

    def wrap(self, command: Sequence[str], hidden: Iterable[Path]) -> list[str]:
        """`command` started isolated, with the existing `hidden` directories covered."""
        return [*self.namespaces, "--", "sh", "-c", COVER_SCRIPT, "crmbench-isolate", *covers(hidden), "--", *DROP_PRIVILEGES, *command]

    def check(self, hidden: Iterable[Path]) -> None:
        """`IsolationUnavailable` unless these covers can be made here: checked once per set of directories,
        before any agent runs, so a cover that fails is the harness's problem and never an agent's exit."""
        _check_covers(self, tuple(covers(hidden)))


def covers(hidden: Iterable[Path]) -> list[str]:
    """The existing directories of `hidden`, outermost only (a cover hides what is under it)."""
    found = sorted({str(p.resolve()) for p in hidden if p is not None and Path(p).is_dir()})
    return [p for p in found if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in found)]


@functools.cache
def _check_covers(isolation: Isolation, paths: tuple[str, ...]) -> None:
    command = [*isolation.namespaces, "--", "sh", "-c", COVER_SCRIPT, "crmbench-isolate", *paths, "--", *DROP_PRIVILEGES, "true"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=20, check=False, stdin=subprocess.DEVNULL, env={"PATH": os.environ.get("PATH", os.defpath)})
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise IsolationUnavailable(f"the directories to hide cannot be covered: {exc}") from None
    if done.returncode != 0:
        raise IsolationUnavailable(f"the directories to hide ({', '.join(paths)}) cannot be covered: {(done.stderr.strip() or f'exit {done.returncode}')[:300]}")


def _namespaces(as_root: bool) -> tuple[str, ...]:
    user = () if as_root else ("--user", "--map-root-user")
    return ("unshare", *user, "--pid", "--fork", "--kill-child", "--mount", "--mount-proc", "--propagation", "private")


@functools.cache
def probe() -> Isolation:
    """The isolation this machine gives, checked by running an isolated child that tries to reach this
    process; `IsolationUnavailable` with the reason when it cannot be had. Cached: one probe per process."""
    missing = [tool for tool in ("unshare", "setpriv", "mount", "sh") if shutil.which(tool) is None]
    if missing:
        raise IsolationUnavailable(f"{', '.join(missing)} not found (util-linux on Linux is needed)")
    as_root = os.geteuid() == 0
    isolation = Isolation(_namespaces(as_root), as_root)
    with tempfile.TemporaryDirectory(prefix="crmbench-probe-") as hidden:
        Path(hidden, "secret").write_text("x")
        command = isolation.wrap(["sh", "-c", PROBE_SCRIPT, "probe", str(os.getpid()), hidden], [Path(hidden)])
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=20, check=False, stdin=subprocess.DEVNULL, env={"PATH": os.environ.get("PATH", os.defpath)})
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise IsolationUnavailable(f"the isolation probe did not run: {exc}") from None
    if done.returncode != 0 or done.stdout.strip() != "isolated":
        why = (done.stdout.strip() or done.stderr.strip() or f"exit {done.returncode}").splitlines()[-1][:300]
        raise IsolationUnavailable(f"{' '.join(isolation.namespaces)} does not isolate here: {why}")
    log.debug("process agents run isolated (%s)", "root" if as_root else "user namespace")
    return isolation


def hidden_paths(run_dirs: Iterable[Path | None] = ()) -> list[Path]:
    """The directories a process agent must not see: the task catalog (`contracts/`: tasks with their gold
    paths and evidence phrases), the git data of the repository holding it (its history holds the same),
    and the run directories (records of earlier trials)."""
    from contracts.catalog import CONTRACTS_DIR

    paths: list[Path] = [CONTRACTS_DIR]
    root = CONTRACTS_DIR.parent
    git = root / ".git"
    if git.is_dir():
        paths.append(git)
    elif git.is_file():  # a worktree: `.git` names its git directory, whose common directory holds the objects
        text = git.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            gitdir = Path(text.split(":", 1)[1].strip())
            paths.append(gitdir)
            common = gitdir / "commondir"
            if common.is_file():
                paths.append((gitdir / common.read_text().strip()).resolve())
    paths += [Path(p) for p in run_dirs if p is not None]
    return paths
