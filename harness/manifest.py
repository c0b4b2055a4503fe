"""The run manifest: everything needed to know what a run measured and to reproduce it."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import importlib.metadata
import platform
import subprocess
from pathlib import Path
from typing import Any

from contracts.catalog import catalog_lock
from harness.runner.config import RunConfig
from harness.runner.plan import Plan, config_hash
from models.prices import PriceTable

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("crm-agent-bench", "fastmcp", "mcp", "pydantic", "openai", "anthropic", "pydantic-ai-slim", "openai-agents")


def git_state() -> dict[str, Any]:
    def git(*args: str) -> str | None:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=True).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": None if status is None else bool(status)}


SOURCE_PACKAGES = ("contracts", "grader", "harness", "models", "orchestrator", "servers", "simulator")
"""The project's own packages: what the source hash covers (in a checkout and in an installed wheel alike)."""
SOURCE_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".txt", ".md")


def tree_sha256(root: Path, packages: tuple[str, ...] | None = None) -> str:
    """sha256 over every source file under `root` (or its `packages`), by relative path and content."""
    digest = hashlib.sha256()
    bases = [root / p for p in packages] if packages else [root]
    for base in bases:
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or "__pycache__" in path.parts or not path.is_file():
                continue
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@functools.cache
def source_identity() -> dict[str, str | None]:
    """The code that produced a run, also without git (an installed wheel): the distribution's version and
    a sha256 of the project's own source files, so two runs of different code never look alike."""
    try:
        version: str | None = importlib.metadata.version("crm-agent-bench")
    except importlib.metadata.PackageNotFoundError:
        version = None
    return {"version": version, "source_sha256": tree_sha256(ROOT, SOURCE_PACKAGES)}


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def judge_calibration(kind: str, model: str | None, prompt: str) -> dict[str, Any] | None:
    """The run's judge's agreement with the labelled calibration set, as last measured by
    `crmbench judge-check` on the current set (None when never measured for this judge/model/prompt)."""
    from grader.calibration import manifest_entry

    if kind == "llm":
        return manifest_entry(f"llm:{model}", prompt)
    return manifest_entry("evidence", None)


def build_manifest(config: RunConfig, plan: Plan, prices: PriceTable, task_ids: list[str], lock: dict[str, Any] | None = None) -> dict[str, Any]:
    from grader.llm_consent import PROMPT as CONSENT_PROMPT
    from grader.llm_judge import PROMPT as JUDGE_PROMPT
    from models.prompts import VersionedPrompt
    from simulator.llm_user import PROMPT as USER_PROMPT
    from simulator.llm_user import PROMPT_DIR as USER_PROMPT_DIR

    lock = lock or catalog_lock()
    return {
        "benchmark": lock["benchmark"],
        "dataset_version": lock["version"],
        "dataset_lock_sha256": lock["catalog_sha256"],
        "git": git_state(),
        "source": source_identity(),
        "packages": package_versions(),
        "python": platform.python_version(),
        "config": config.model_dump(mode="json"),
        "config_hash": config_hash(config, plan, lock["catalog_sha256"]),
        "plan": plan.model_dump(),
        "models": plan.models(),
        "sampling": {"agent_temperature": config.agent_temperature, "user_temperature": config.user_temperature, "judge_temperature": 0.0},
        "limits": {"max_turns": config.max_turns, "task_timeout_s": config.task_timeout_s, "max_iterations": config.max_iterations},
        "simulator": {
            "kind": plan.user,
            "model": plan.user_model,
            "prompt": VersionedPrompt(USER_PROMPT_DIR, config.user_prompt).fingerprint if plan.user == "llm" else USER_PROMPT.fingerprint,
            "prompt_version": config.user_prompt,
            "exclude_simulator_faults": config.exclude_simulator_faults,
        },
        "judge_calibration": judge_calibration(plan.judge, plan.judge_model, JUDGE_PROMPT.fingerprint),
        "judge": {"kind": plan.judge, "model": plan.judge_model, "prompt": JUDGE_PROMPT.fingerprint, "consent_prompt": CONSENT_PROMPT.fingerprint},
        "price_table": prices.model_dump(mode="json"),
        "tasks_selected": len(task_ids),
        "rounds": config.rounds,
        "started_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
