"""Recorded model answers (`models.providers.replay`): `replay:PATH` answers exactly the requests a recording
holds and refuses any other (never a made-up answer); `Recorder` writes what a model answered, so a model
judge's calibration figure can be reproduced offline; and the committed recording of the model judges on the
held-out splits reproduces the figures stored for it."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from rich.console import Console

from grader.calibration import HELDOUT, RESULTS_FILE, result_key
from grader.grade import fact_problem
from contracts.schema import ReplyCriterion
from harness.judge_check import JudgeCheckConfig, check
from models.base import ConfigurationError, ModelError
from models.model import Model
from models.providers.replay import MissingRecording, Recorder, ReplayAPI, read_recording, request_key
from models.registry import credential_env, get_model_api
from models.scripted import calls, scripted
from models.types import ChatMessage, ToolSpec

RECORDING = Path(__file__).resolve().parent.parent / "contracts" / "judge_calibration" / "recorded" / "llm-agent-as-judge-2026-12-04.jsonl"
QUIET = Console(file=open("/dev/null", "w"))  # noqa: SIM115 - the console lives as long as the module
ASK = [ChatMessage(role="system", content="You grade replies."), ChatMessage(role="user", content="Is ORD-9001 delivered?")]
TOOLS = [ToolSpec(name="lookup_order", description="Find an order.")]


def _generate(api, messages=ASK, tools=()):
    return anyio.run(lambda: Model(api, role="judge").generate(messages, tools=list(tools)))


def test_the_request_key_is_the_whole_request() -> None:
    assert request_key(ASK, []) == request_key([m.model_copy() for m in ASK], [])
    assert request_key(ASK, []) != request_key([ASK[0], ChatMessage(role="user", content="Is ORD-9002 delivered?")], [])
    assert request_key(ASK, []) != request_key([ChatMessage(role="user", content=m.content) for m in ASK], [])  # roles count
    assert request_key(ASK, []) != request_key(ASK, TOOLS)


def test_a_recording_replays_what_the_model_answered(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    inner = scripted(["{\"verdict\": true}", calls(("lookup_order", {"order_id": "ORD-9001"}), text="Looking it up.")], model="judge-x")
    first = _generate(Recorder(inner, path))
    second = _generate(Recorder(inner, path), tools=TOOLS)
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["model"] == "mock:judge-x" for line in lines)
    replay = ReplayAPI(str(path))
    again = _generate(replay)
    assert again.text == first.text == "{\"verdict\": true}"
    tool_call = _generate(replay, tools=TOOLS).tool_calls[0]
    assert (tool_call.name, tool_call.arguments) == ("lookup_order", {"order_id": "ORD-9001"}) == (second.tool_calls[0].name, second.tool_calls[0].arguments)


def test_a_request_asked_again_is_recorded_once(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    recorder = Recorder(scripted(["first", "second"]), path)
    _generate(recorder), _generate(recorder)
    assert [json.loads(line)["output"]["text"] for line in path.read_text().splitlines()] == ["first"]


def test_a_request_the_recording_lacks_is_an_error_not_an_answer(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    _generate(Recorder(scripted(["yes"]), path))
    with pytest.raises(MissingRecording, match="holds no answer for request") as raised:
        _generate(ReplayAPI(str(path)), messages=[ChatMessage(role="user", content="Another question")])
    assert isinstance(raised.value, ConfigurationError) and not raised.value.infrastructure  # stops a run, never ⊥


def test_a_missing_or_malformed_recording_names_the_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="no recording at"):
        read_recording(tmp_path / "none.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"key": "k", "model": "m", "output": {"text": "ok"}}\n\n{"key": "k2"}\n')
    with pytest.raises(ConfigurationError, match=r"bad.jsonl, line 3 is not a recorded answer"):
        read_recording(bad)


def test_replay_is_a_provider_that_needs_no_key(tmp_path: Path) -> None:
    api = get_model_api(f"replay:{tmp_path / 'a.jsonl'}")
    assert isinstance(api, ReplayAPI) and api.name == "replay:a.jsonl" and api.path == tmp_path / "a.jsonl"
    assert credential_env("replay:anything.jsonl") is None


def test_judge_check_refuses_to_record_a_replay_or_the_offline_judge(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="already answers from a recording"):
        check(JudgeCheckConfig(judge="llm", judge_model=f"replay:{RECORDING}", record=tmp_path / "x.jsonl"), results=tmp_path / "r.json", console=QUIET)
    with pytest.raises(SystemExit, match="needs --judge llm"):
        check(JudgeCheckConfig(record=tmp_path / "x.jsonl"), results=tmp_path / "r.json", console=QUIET)
    assert not (tmp_path / "x.jsonl").exists()


def test_the_cli_reports_a_recording_made_for_other_requests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(SystemExit):
        main(["judge-check", "--judge", "llm", "--judge-model", f"replay:{empty}", "--split", "dev", "--domain", "sales"])
    assert "holds no answer for request" in capsys.readouterr().err


def test_the_committed_recording_reproduces_its_stored_held_out_figures(tmp_path: Path) -> None:
    """The model judges' answers on the held-out splits, recorded once (docs/judges.md, "The model judges on the
    held-out splits"), replayed through today's prompts, request rendering and answer validation: the figures
    are the ones stored for them. A changed prompt or case misses its recorded answer and fails here: record
    again, or drop the recording with its stored figures."""
    results = tmp_path / "results.json"
    report = check(JudgeCheckConfig(judge="llm", judge_model=f"replay:{RECORDING}", split=[HELDOUT, "heldout_consent"], show=0),
                   results=results, console=QUIET)
    stored = json.loads(RESULTS_FILE.read_text())
    for split, judge in ((HELDOUT, report.splits[HELDOUT]), ("heldout_consent", report.splits["heldout_consent"])):
        figure = stored[result_key(judge.judge, judge.prompt)]["splits"][split]
        assert (judge.overall.n, round(judge.overall.agreement, 4)) == (figure["items"], figure["agreement"])
        assert judge.overall.agreement >= 0.98


def test_the_committed_recording_reproduces_its_figures_on_the_retired_set_v10() -> None:
    """The same judges' answers on v10 (retired to dev, written blind like v11): 745 of 754 replies, 211 of 211
    consent cases (docs/judges.md, "The model judges on the held-out splits")."""
    from grader.calibration import CALIBRATION_DIR, load_heldout, measure
    from grader.consent_calibration import load_consent, measure_consent
    from grader.consent_judges import consent_judge_for
    from harness.judge_check import build_judge, catalog_views, consent_checks

    judge, prompt = build_judge(JudgeCheckConfig(judge="llm", judge_model=f"replay:{RECORDING}"))
    instructions, criteria = catalog_views()
    replies = anyio.run(lambda: measure(judge, load_heldout(criteria, CALIBRATION_DIR / "paraphrase_v10"), instructions, prompt=prompt, set_sha="", split="v10"))
    consent = anyio.run(lambda: measure_consent(consent_judge_for(judge), load_consent(consent_checks(), CALIBRATION_DIR / "consent_v10"),
                                                prompt=None, set_sha="", split="v10"))
    assert (replies.overall.n, len(replies.disagreements)) == (754, 9)
    assert (consent.overall.n, len(consent.disagreements)) == (211, 0)


def test_a_quote_may_write_the_criterions_id_as_the_reply_judge_reads_it() -> None:
    criterion = ReplyCriterion(criterion="Confirms REQ-5004 is cancelled.", evidence=["REQ-5004", "cancelled"])
    assert fact_problem("request #5004 is now void", criterion) is None
    assert fact_problem("REQ 5004 is now void", criterion) is None
    assert fact_problem("request 5005 is now void", criterion) is not None
    assert fact_problem("it is now void", criterion) is not None


def test_a_model_error_from_replay_is_not_retried(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text("")
    api = ReplayAPI(str(path))
    with pytest.raises(ModelError):
        _generate(api)


def test_a_quote_may_state_a_span_of_time_in_other_words() -> None:
    criterion = ReplyCriterion(criterion="Explains basic fares get nothing back after 24 hours.", evidence=["24", "nothing back"])
    assert fact_problem("if you cancel more than a day after booking", criterion) is None
    assert fact_problem("cancel after 1,440 minutes and it's gone", criterion) is None
    assert fact_problem("if you cancel more than two days after booking", criterion) is not None
    assert fact_problem("if you cancel later than that", criterion) is not None
