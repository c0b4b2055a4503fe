"""What a process agent runs: the files whose content is its code identity (issue 41).

The run identity (`harness.runner.plan.config_hash`) must change when the agent's code changes, or a resumed run
silently mixes the records of two agents. A command often does not name its code: `wrap.sh` runs a
Python file, `python -m pkg.agent` names a module, `bash -c 'python agent.py'` hides it in a string, `uv
run --directory D python agent.py` resolves it elsewhere. `agent_code` follows each of these:

- every word of the command that names an existing file (relative words against the directory the run
  started from and any directory the command names with `--directory`/`--project`/`-C`/`--cwd`);
- the script of a shell's `-c` string, read as a command of its own;
- `-m pkg.mod`: the module's file and every `.py` file of its top-level package;
- a shell script's own words, read as commands (the files it runs);
- a Python file's imports that resolve to files beside it or under those directories (recursively);
- the paths declared with `--agent-code PATH` (a file, or every file under a directory).

Code given inline (`python -c CODE`, `node -e CODE`) is its own identity: the command is in the run
identity already.

The identity is *established* when at least one of those files is the agent's own code: a declared
path, or a file the command names that is not only the interpreter that runs it (`/usr/bin/python3`
alone identifies nothing). A run whose agent identity is not established is not resumed unless the user
says so (`--allow-unidentified-agent`, `harness.runner.run`).
"""

from __future__ import annotations

import ast
import hashlib
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILES = 2000
"""Files hashed at most (a declared directory, a large package): the identity stays cheap to compute."""
SKIPPED_DIRS = frozenset({".git", "__pycache__", ".venv", "venv", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
INTERPRETER = re.compile(
    r"(?:python[\d.]*|pypy[\d.]*|node(?:js)?|bash|sh|zsh|dash|ksh|fish|uv|uvx|poetry|pipenv|pdm|hatch|ruby|perl|php|java|deno|bun|npx|npm|env|exec|nice|timeout|stdbuf)(?:\.exe)?"
)
"""Programs that run code named elsewhere in the command: they identify no agent by themselves."""
DIRECTORY_FLAGS = frozenset({"--directory", "--project", "-C", "--cwd", "--prefix", "--chdir"})
SHELLS = re.compile(r"(?:bash|sh|zsh|dash|ksh|fish)")


def resolve_command(command: list[str], base: Path | None = None) -> list[str]:
    """The command with relative arguments that name existing files made absolute (against `base`, the
    directory the run was started from): the process runs in an empty temporary directory."""
    base = base or Path.cwd()
    out = []
    for i, word in enumerate(command):
        path = Path(word)
        if not word.startswith("-") and not path.is_absolute() and (i > 0 or "/" in word) and (base / path).exists():
            out.append(str((base / path).resolve()))
        else:
            out.append(word)
    return out


@dataclass
class AgentCode:
    """The files an agent command runs, and whether they identify the agent."""

    files: dict[Path, None] = field(default_factory=dict)
    established: bool = False

    def add(self, path: Path, *, identifies: bool = True) -> bool:
        path = path.resolve()
        if path in self.files or len(self.files) >= MAX_FILES or not path.is_file():
            return False
        self.files[path] = None
        self.established = self.established or identifies
        return True

    def digest(self) -> str | None:
        """sha256 over the files (path and content), or None when the identity is not established."""
        if not self.established:
            return None
        digest = hashlib.sha256()
        for path in sorted(self.files):
            digest.update(str(path).encode() + b"\0")
            try:
                digest.update(hashlib.sha256(path.read_bytes()).digest())
            except OSError:
                digest.update(b"unreadable")
        return digest.hexdigest()[:16]


def _tree(directory: Path, suffix: str | None = None) -> list[Path]:
    out = []
    for path in sorted(directory.rglob("*")):
        if len(out) >= MAX_FILES:
            break
        if path.is_file() and not SKIPPED_DIRS.intersection(path.relative_to(directory).parts) and (suffix is None or path.suffix == suffix):
            out.append(path)
    return out


def _shebang(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            head = handle.readline(200)
    except OSError:
        return ""
    return head.decode("utf-8", "replace") if head.startswith(b"#!") else ""


def _is_python(path: Path) -> bool:
    return path.suffix == ".py" or "python" in _shebang(path)


def _is_shell(path: Path) -> bool:
    shebang = _shebang(path)
    return path.suffix in (".sh", ".bash") or bool(shebang and SHELLS.search(shebang.split("/")[-1]))


def _module_files(name: str, roots: list[Path]) -> list[Path]:
    """The files of module `name` under `roots`: the whole top-level package when it is one."""
    parts = name.split(".")
    for root in roots:
        package = root / parts[0]
        if (package / "__init__.py").is_file() or (package.is_dir() and any(package.glob("*.py"))):
            return _tree(package, ".py")
        single = root / f"{parts[0]}.py"
        if single.is_file():
            return [single]
    return []


def _python_imports(path: Path, roots: list[Path]) -> list[Path]:
    """The local files `path` imports (beside it or under `roots`); the standard library and installed
    packages are not the agent's code (`uv.lock` or the environment pin those)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError, OSError):
        return []
    here = [path.parent, *roots]
    out: list[Path] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = path.parent
                for _ in range(node.level - 1):
                    base = base.parent
                target = base / (node.module or "").replace(".", "/") if node.module else base
                candidates = [target.with_suffix(".py"), target / "__init__.py", *(base / f"{a.name}.py" for a in node.names)]
                out += [c for c in candidates if c.is_file()]
                continue
            names = [node.module or ""]
        for name in filter(None, names):
            out += _module_files(name, here)
    return out


class _Walker:
    def __init__(self, code: AgentCode) -> None:
        self.code = code
        self.seen_scripts: set[Path] = set()

    def command(self, words: list[str], bases: list[Path], depth: int = 0) -> None:
        """Follow one command's words (see the module docstring)."""
        if depth > 4 or not words:
            return
        bases = list(bases)
        program = Path(words[0]).name
        for i, word in enumerate(words):
            previous = words[i - 1] if i else ""
            if previous in DIRECTORY_FLAGS or any(word.startswith(f"{flag}=") for flag in DIRECTORY_FLAGS if flag.startswith("--")):
                directory = Path(word.split("=", 1)[1] if word.startswith("--") and "=" in word else word)
                for base in list(bases):
                    candidate = directory if directory.is_absolute() else base / directory
                    if candidate.is_dir():
                        bases.insert(0, candidate.resolve())
                        break
                continue
            if previous == "-c" and SHELLS.fullmatch(program):
                try:
                    self.command(shlex.split(word), bases, depth + 1)
                except ValueError:
                    pass
                continue
            if previous in ("-c", "-e", "--eval") and not SHELLS.fullmatch(program) and INTERPRETER.fullmatch(program):
                self.code.established = True  # `python -c CODE`: the code is the command itself, in the identity
                continue
            if previous == "-m":
                for path in _module_files(word, bases):
                    self.file(path, bases, depth)
                continue
            if word.startswith("-") and "=" not in word:
                continue
            value = word.split("=", 1)[1] if word.startswith("-") else word
            for base in bases:
                path = Path(value) if Path(value).is_absolute() else base / value
                if path.is_file():
                    identifies = not (i == 0 and INTERPRETER.fullmatch(program))
                    self.file(path, bases, depth, identifies=identifies)
                    break

    def file(self, path: Path, bases: list[Path], depth: int, *, identifies: bool = True) -> None:
        if not self.code.add(path, identifies=identifies) or not identifies:
            return
        resolved = path.resolve()
        if resolved in self.seen_scripts:
            return
        self.seen_scripts.add(resolved)
        if _is_python(resolved):
            pending = [resolved]
            while pending:
                current = pending.pop()
                for imported in _python_imports(current, bases):
                    if self.code.add(imported):
                        pending.append(imported.resolve())
        elif _is_shell(resolved):
            try:
                text = resolved.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return
            for line in text.splitlines():
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                try:
                    self.command(shlex.split(line, comments=True), [resolved.parent, *bases], depth + 1)
                except ValueError:
                    continue


def agent_code(command: str | list[str], declared: list[Path] | None = None, base: Path | None = None) -> AgentCode:
    """The files `command` runs (see the module docstring), plus the `declared` paths."""
    base = (base or Path.cwd()).resolve()
    code = AgentCode()
    for path in declared or []:
        path = path if path.is_absolute() else base / path
        for found in _tree(path) if path.is_dir() else [path]:
            code.add(found)
    words = shlex.split(command) if isinstance(command, str) else list(command)
    _Walker(code).command(words, [base])
    return code
