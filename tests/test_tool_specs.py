"""Kept tool specs (`servers.tool_specs`): a gateway built from them serves exactly what fastmcp derives,
and a stale, broken or unwritable cache only ever costs a derivation."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from fastmcp import Client

from servers import tool_derivation, tool_specs
from servers.gateway import Gateway
from servers.recorder import bind_trial
from servers.registry import environment_class, known_domains
from servers.tool_derivation import derive_tool, domain_tool_specs, domain_tools

pytestmark = pytest.mark.anyio


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty disk cache and no in-memory specs: the next gateway derives and keeps."""
    monkeypatch.setenv(tool_specs.CACHE_ENV, str(tmp_path))
    tool_specs.forget()
    yield tmp_path
    tool_specs.forget()


def no_derivation(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("a tool was derived although its spec was kept")

    monkeypatch.setattr(tool_derivation, "derive_tool", refuse)


async def listed(gateway: Gateway) -> dict[str, str]:
    """Every domain's `tools/list` and the combined endpoint's, as the JSON the client receives."""
    servers = {**gateway.servers, "(combined)": gateway.combined}
    out: dict[str, str] = {}
    for label, server in servers.items():
        async with Client(server) as client:
            result = await client.list_tools_mcp()
        out[label] = result.model_dump_json(by_alias=True, exclude_none=True)
    return out


def test_a_tool_from_its_spec_is_the_tool_fastmcp_derives(cache: Path) -> None:
    for domain in known_domains():
        env_cls = environment_class(domain)
        kept = domain_tools(env_cls)  # derived and kept
        tool_specs.forget()
        rebuilt = domain_tools(env_cls)  # from the disk
        for name, derived in kept.items():
            fresh = derive_tool(env_cls, name)
            for tool in (derived, rebuilt[name]):
                assert tool.model_dump(exclude={"fn"}) == fresh.model_dump(exclude={"fn"}), (domain, name)
                assert tool.return_type == fresh.return_type, (domain, name)
                assert tool.fn.__signature__ == fresh.fn.__signature__, (domain, name)


async def test_tools_list_is_byte_identical_from_the_disk_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    derived = await listed(Gateway())
    assert sorted(p.name.split("-")[0] for p in (cache / tool_specs.SPECS_SUBDIR).iterdir()) == sorted(
        f"{environment_class(d).__module__}.{environment_class(d).__qualname__}" for d in known_domains()
    )
    tool_specs.forget()
    with monkeypatch.context() as patch:
        no_derivation(patch)
        kept = await listed(Gateway())
    assert kept == derived
    assert all(json.loads(text)["tools"] for text in kept.values())


async def test_a_call_through_a_kept_tool_validates_and_executes(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Gateway(["payments"])  # derive and keep
    tool_specs.forget()
    no_derivation(monkeypatch)
    gateway = Gateway(["payments"])
    trial = gateway.open_trial("payments")
    async with Client(gateway.servers["payments"]) as client:
        with bind_trial(trial.trial_id):
            bad = await client.call_tool("get_account_balance", {"account_id": 7}, raise_on_error=False)
            good = await client.call_tool("get_account_balance", {"account_id": "ACC-1001"}, raise_on_error=False)
    assert bad.is_error
    assert not good.is_error, good
    assert [c.status for c in gateway.trial(trial.trial_id).trace] == ["tool_error", "executed"]


def test_a_source_or_library_change_is_a_new_key(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fastmcp

    env_cls = environment_class("payments")
    key = tool_specs.spec_key(env_cls)
    assert tool_specs.spec_key(env_cls) == key
    monkeypatch.setattr(fastmcp, "__version__", fastmcp.__version__ + ".post1")
    tool_specs.forget()
    assert tool_specs.spec_key(env_cls) != key
    monkeypatch.undo()
    tool_specs.forget()
    assert tool_specs.spec_key(env_cls) == key

    own = cache / "own_module.py"
    own.write_text("x = 1\n")
    monkeypatch.setattr(tool_specs, "_own_source", lambda cls: own)
    before = tool_specs.spec_key(env_cls)
    own.write_text("x = 2\n")
    assert tool_specs.spec_key(env_cls) != before

    tree = cache / "servers"
    tree.mkdir()
    (tree / "base.py").write_text("y = 1\n")
    monkeypatch.setattr(tool_specs, "SERVERS_DIR", tree)
    tool_specs.forget()
    before = tool_specs.spec_key(env_cls)
    (tree / "domains").mkdir()
    (tree / "domains" / "tools.py").write_text("z = 1\n")  # a new file anywhere below servers/
    tool_specs.forget()
    assert tool_specs.spec_key(env_cls) != before


def test_a_broken_or_foreign_cache_file_is_a_miss_and_is_replaced(cache: Path) -> None:
    env_cls = environment_class("payments")
    names = list(env_cls.tool_methods())
    domain_tools(env_cls)
    (path,) = (cache / tool_specs.SPECS_SUBDIR).iterdir()
    good = path.read_text()
    for broken in ("{not json", json.dumps({"key": "other", "tools": json.loads(good)["tools"]}), json.dumps({"key": json.loads(good)["key"], "tools": {}})):
        path.write_text(broken)
        tool_specs.forget()
        assert tool_specs.load(env_cls, names) is None
        domain_tools(env_cls)
        assert json.loads(path.read_text()) == json.loads(good)
    tool_specs.forget()
    assert tool_specs.load(env_cls, names) is not None


def test_stale_files_of_a_class_are_removed_and_an_unwritable_cache_is_skipped(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env_cls = environment_class("payments")
    specs_dir = cache / tool_specs.SPECS_SUBDIR
    specs_dir.mkdir()
    stem = f"{env_cls.__module__}.{env_cls.__qualname__}"
    stale, recent, other_class = specs_dir / f"{stem}-0000.json", specs_dir / f"{stem}-1111.json", specs_dir / f"{stem}Other-0000.json"
    for path in (stale, recent, other_class):
        path.write_text("{}")
    week_ago = time.time() - tool_specs.STALE_AFTER_S - 60
    os.utime(stale, (week_ago, week_ago))
    os.utime(other_class, (week_ago, week_ago))
    domain_tools(env_cls)
    assert not stale.exists()  # another key, old: another version of the code, long gone
    assert recent.exists()  # another key, recent: another checkout in use keeps its file
    assert other_class.exists()
    assert len(list(specs_dir.glob(f"{stem}-*.json"))) == 2

    blocked = cache / "a-file"
    blocked.write_text("")
    monkeypatch.setenv(tool_specs.CACHE_ENV, str(blocked))  # a file where the directory should be
    tool_specs.forget()
    assert set(domain_tools(env_cls)) == set(env_cls.tool_methods())


def test_the_cache_directory_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(tool_specs.CACHE_ENV, "off")
    assert tool_specs.cache_dir() is None
    monkeypatch.setenv(tool_specs.CACHE_ENV, str(tmp_path))
    assert tool_specs.cache_dir() == tmp_path
    monkeypatch.delenv(tool_specs.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tool_specs.cache_dir() == tmp_path / "xdg" / "crmbench"
    monkeypatch.delenv("XDG_CACHE_HOME")

    def homeless() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(homeless))
    assert tool_specs.cache_dir() is None


def test_with_the_cache_off_nothing_is_written(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(tool_specs.CACHE_ENV, "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    tool_specs.forget()
    try:
        domain_tools(environment_class("payments"))
    finally:
        tool_specs.forget()
    assert not any(tmp_path.iterdir())


def test_each_server_gets_its_own_schemas(cache: Path) -> None:
    env_cls = environment_class("payments")
    first, second = domain_tools(env_cls), domain_tools(env_cls)
    name = next(iter(first))
    first[name].parameters["properties"]["injected"] = {"type": "string"}
    assert "injected" not in second[name].parameters["properties"]
    assert "injected" not in domain_tool_specs(env_cls)[name].parameters["properties"]

