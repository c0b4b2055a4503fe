"""The per-trial explorer of the HTML report: an index of system × round × task with filters (system,
round, domain, capability, difficulty, outcome, failure label, task search), where each row opens the
trial: conversation, routing, tool calls with arguments and results, the final-state diff and every
verdict with its reason; a failed trial also shows its diff against the gold path and against a passing
trial of the same task (turn by turn, call by call: the first divergence and the first wrong write). Flip
tables link into it with `#trial=ID`.

Still one file and no server: every trial is embedded as gzip-compressed JSON (base64) that the page
inflates with the browser's DecompressionStream, so 16 systems × 3 rounds × 555 tasks stay about 7 MB (the
diffs of failed trials are about 1.4 MB of it).
Long strings are cut (the run directory keeps everything)."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

from harness.records import TrialRecord
from harness.report.data import ReportData, trial_id
from harness.report.state_changes import StateDiff
from harness.report.tables import BOTTOM, UNGRADED, primary_label

TEXT_MAX = 1500
PAYLOAD_MAX = 400
DIFF_MAX = 60


def _cut(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def outcome(record: TrialRecord) -> str:
    if record.status != "scored":
        return BOTTOM
    if record.ungraded:
        return UNGRADED
    return "pass" if record.strict else "fail"


def _detail(record: TrialRecord, diff: StateDiff | None) -> dict[str, Any]:
    """One trial's page in the explorer; `diff` is its state change, computed when the record was read
    (None: a format-1 record, which kept no initial state)."""
    return {
        "conversation": [[m.role, m.turn, _cut(m.content, TEXT_MAX)] for m in record.conversation],
        "routing": [[d.turn, d.node, _cut(d.reason, 300)] for d in record.routing],
        "tools": [[c.turn, c.tool, _cut(c.arguments, PAYLOAD_MAX), c.status, _cut(c.result if c.error is None else c.error, PAYLOAD_MAX)] for c in record.tool_trace],
        "diff": None if diff is None else [[p, _cut(b, 200), _cut(a, 200)] for p, b, a in diff[:DIFF_MAX]],
        "diff_more": 0 if diff is None else max(0, len(diff) - DIFF_MAX),
        "verdicts": [[c.passed, c.component, c.check, _cut(c.reason, 600), _cut(c.diff or "", 300), c.judge or ""] for c in (record.verdict.checks if record.verdict else [])],
        "error": _cut(record.error or "", 600),
        "failure_class": record.failure_class or "",
        "ungraded": record.ungraded or "",
        "hallucinated": record.hallucinated_tools,
        "seed": record.key.seed,
        "wall_s": round(record.wall_s, 2),
        "user_turns": record.user_turns,
    }


def trial_diffs(data: ReportData, record: TrialRecord, passing: tuple[str, str, TrialRecord] | None) -> list[dict[str, Any]]:
    """For a failed trial: its diff against the task's gold path, and against a passing trial of the same
    task (the first on the leaderboard), both from harness.report.diff (the same as `crmbench diff`)."""
    from harness.report.diff import diff_sides, side_of_gold, side_of_record

    out = []
    this = side_of_record("this trial", record)
    task = data.task(record.key.task_id)
    if task is not None:
        out.append({"against": "gold path", "anchor": None, **diff_sides(record.key.task_id, this, side_of_gold(task, record)).payload()})
    if passing is not None:
        label, anchor, other = passing
        out.append({"against": label, "anchor": anchor, **diff_sides(record.key.task_id, this, side_of_record(label, other)).payload()})
    return out


def explorer_payload(data: ReportData) -> dict[str, Any]:
    rows: list[list[Any]] = []
    details: dict[str, Any] = {}
    passing: dict[str, tuple[str, str, TrialRecord]] = {}
    for s in data.systems:
        for number, round_ in enumerate(s.rounds, start=1):
            for task_id, record in round_.records.items():
                if record.status == "scored" and record.strict and task_id not in passing:
                    passing[task_id] = (f"{s.label} round {number}", trial_id(s, number, task_id), record)
    for s in data.systems:
        for number, round_ in enumerate(s.rounds, start=1):
            for task_id in sorted(round_.records):
                record = round_.records[task_id]
                ident = trial_id(s, number, task_id)
                rows.append([ident, s.label, number, task_id, record.domain, record.capabilities, record.difficulty, outcome(record),
                             primary_label(record) or "", len(record.tool_trace)])
                details[ident] = _detail(record, round_.state_diffs.get(task_id))
                if record.status == "scored" and not record.strict:
                    details[ident]["diffs"] = trial_diffs(data, record, passing.get(task_id))
    return {"columns": ["id", "system", "round", "task", "domain", "capabilities", "difficulty", "outcome", "label", "tools"], "rows": rows, "details": details}


def encoded_payload(data: ReportData) -> str:
    raw = json.dumps(explorer_payload(data), separators=(",", ":"), default=str).encode()
    return base64.b64encode(gzip.compress(raw, mtime=0)).decode()


STYLE = """
#explorer .filters{display:flex;flex-wrap:wrap;gap:.4rem;margin:.5rem 0}
#explorer .filters label{font-size:.8rem;display:flex;flex-direction:column}
#explorer .split{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.15fr);gap:1rem;align-items:start}
#explorer .index td{white-space:nowrap;font-size:.75rem;padding:.15rem .4rem}
#explorer .index{max-height:70vh;overflow:auto;border:1px solid #ddd}
#explorer .index table{margin:0;width:100%} #explorer .index tr{cursor:pointer}
#explorer .index tr:hover td{background:#eef3fb} #explorer .index tr.sel td{background:#dbe7fb}
#explorer .o-pass{color:#1a7f37;font-weight:600} #explorer .o-fail{color:#b42318;font-weight:600}
#explorer .o-infra,#explorer .o-ungraded{color:#8a5a00;font-weight:600}
#trial{border:1px solid #bbb;border-radius:6px;padding:.5rem 1rem;max-height:70vh;overflow:auto}
#trial tr.diff td{background:#fff8e1}
#trial code{white-space:pre-wrap;word-break:break-word} #trial tr td:first-child code{white-space:nowrap;word-break:normal}
"""

SCRIPT = r"""
<script>
(function () {
  var state = {data: null, shown: []};
  var LIMIT = 400;
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) { Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); }); }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function cls(outcome) { return outcome === 'pass' ? 'o-pass' : outcome === 'fail' ? 'o-fail' : outcome === 'ungraded' ? 'o-ungraded' : 'o-infra'; }
  async function inflate(b64) {
    var bytes = Uint8Array.from(atob(b64), function (c) { return c.charCodeAt(0); });
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }
  function options(select, values) {
    values.forEach(function (v) { select.appendChild(el('option', {value: String(v)}, v)); });
  }
  function uniq(list) { return Array.from(new Set(list)).sort(function (a, b) { return a < b ? -1 : a > b ? 1 : 0; }); }
  function setup(data) {
    state.data = data;
    var rows = data.rows;
    var f = document.getElementById('explorer-filters');
    options(f.querySelector('[name=system]'), uniq(rows.map(function (r) { return r[1]; })));
    options(f.querySelector('[name=round]'), uniq(rows.map(function (r) { return r[2]; })));
    options(f.querySelector('[name=domain]'), uniq(rows.map(function (r) { return r[4]; })));
    options(f.querySelector('[name=capability]'), uniq([].concat.apply([], rows.map(function (r) { return r[5]; }))));
    options(f.querySelector('[name=difficulty]'), uniq(rows.map(function (r) { return r[6]; })));
    options(f.querySelector('[name=outcome]'), uniq(rows.map(function (r) { return r[7]; })));
    options(f.querySelector('[name=label]'), uniq(rows.map(function (r) { return r[8]; }).filter(function (x) { return x; })));
    f.addEventListener('input', render);
    render();
    document.getElementById('explorer').setAttribute('data-ready', String(rows.length));
    openFromHash();
  }
  function value(name) { return document.querySelector('#explorer-filters [name=' + name + ']').value; }
  function render() {
    var rows = state.data.rows, q = value('q').toLowerCase();
    var want = {system: value('system'), round: value('round'), domain: value('domain'), capability: value('capability'),
                difficulty: value('difficulty'), outcome: value('outcome'), label: value('label')};
    var match = rows.filter(function (r) {
      return (!want.system || r[1] === want.system) && (!want.round || String(r[2]) === want.round) &&
        (!want.domain || r[4] === want.domain) && (!want.capability || r[5].indexOf(want.capability) >= 0) &&
        (!want.difficulty || r[6] === want.difficulty) && (!want.outcome || r[7] === want.outcome) &&
        (!want.label || r[8] === want.label) && (!q || r[3].toLowerCase().indexOf(q) >= 0);
    });
    var body = document.getElementById('explorer-rows');
    body.textContent = '';
    match.slice(0, LIMIT).forEach(function (r) {
      var tr = el('tr', {'data-id': r[0]});
      [r[1], r[2], r[3], r[4], r[6]].forEach(function (v) { tr.appendChild(el('td', null, v)); });
      tr.appendChild(el('td', {'class': cls(r[7])}, r[7]));
      tr.appendChild(el('td', null, r[8]));
      tr.addEventListener('click', function () { location.hash = 'trial=' + r[0]; });
      body.appendChild(tr);
    });
    var count = document.getElementById('explorer-count');
    count.textContent = match.length + ' of ' + rows.length + ' trials' + (match.length > LIMIT ? ' (first ' + LIMIT + ' listed; narrow the filters)' : '');
    count.setAttribute('data-count', String(match.length));
  }
  function section(parent, title) { parent.appendChild(el('h4', null, title)); }
  function table(parent, head, rows, rowClass) {
    var t = el('table'), tr = el('tr');
    head.forEach(function (h) { tr.appendChild(el('th', null, h)); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var row = el('tr', rowClass ? {'class': rowClass(r)} : null);
      r.forEach(function (v) { var td = el('td'); td.appendChild(el('code', null, v)); row.appendChild(td); });
      t.appendChild(row);
    });
    parent.appendChild(t);
  }
  function openTrial(id) {
    if (!state.data) { return; }
    var row = state.data.rows.find(function (r) { return r[0] === id; });
    var d = state.data.details[id];
    var pane = document.getElementById('trial');
    pane.textContent = '';
    if (!row || !d) { pane.appendChild(el('p', null, 'No trial ' + id + ' in this report.')); return; }
    document.querySelectorAll('#explorer-rows tr.sel').forEach(function (x) { x.classList.remove('sel'); });
    var sel = document.querySelector('#explorer-rows tr[data-id="' + id + '"]');
    if (sel) { sel.classList.add('sel'); }
    pane.setAttribute('data-trial', id);
    pane.appendChild(el('h3', null, row[3] + ' - ' + row[1] + ' - round ' + row[2]));
    var head = el('p');
    head.appendChild(el('span', {'class': cls(row[7])}, row[7]));
    head.appendChild(document.createTextNode(' ' + (row[8] ? 'primary: ' + row[8] + '; ' : '') + row[4] + ', ' + row[6] + ', capabilities ' + row[5].join(', ') +
      '; seed ' + d.seed + ', ' + d.user_turns + ' user turns, ' + row[9] + ' tool calls, ' + d.wall_s + ' s'));
    pane.appendChild(head);
    if (d.failure_class || d.error) { pane.appendChild(el('p', {'class': 'note'}, [d.failure_class, d.error].filter(Boolean).join(': '))); }
    if (d.ungraded) { pane.appendChild(el('p', {'class': 'note'}, 'ungraded: ' + d.ungraded)); }
    if (d.hallucinated.length) { pane.appendChild(el('p', {'class': 'note'}, 'hallucinated tools: ' + d.hallucinated.join(', '))); }
    section(pane, 'Verdicts');
    if (d.verdicts.length) {
      table(pane, ['', 'component', 'check', 'reason', 'diff', 'judge'],
        d.verdicts.map(function (v) { return [v[0] ? 'PASS' : 'FAIL', v[1], v[2], v[3], v[4], v[5]]; }),
        function (r) { return r[0] === 'PASS' ? 'pass' : 'fail'; });
    } else { pane.appendChild(el('p', null, 'no verdict')); }
    (d.diffs || []).forEach(function (x) {
      section(pane, 'Diff against ' + x.against);
      var p = el('p', {'class': 'note diff-summary'});
      p.appendChild(document.createTextNode('first divergence: ' + (x.first || 'none') + '. first wrong write: ' +
        (x.failing ? (x.wrong || 'none: every write matches') : 'not named (no pass/fail pair)') + '.'));
      if (x.anchor) { p.appendChild(document.createTextNode(' ')); p.appendChild(el('a', {href: '#trial=' + x.anchor}, 'open that trial')); }
      pane.appendChild(p);
      table(pane, ['turn', '', 'this trial', x.against, 'difference'],
        x.rows.map(function (r) { return [r[0], r[1], r[2], r[3], r[4] + (r[5] ? ' [write]' : '')]; }),
        function (r) { return r[1] === '=' ? '' : (r[4].indexOf('[write]') >= 0 ? 'fail' : 'diff'); });
    });
    section(pane, 'Conversation');
    d.conversation.forEach(function (m) { var p = el('p', {'class': m[0]}); p.appendChild(el('b', null, m[0] + ' (turn ' + m[1] + '): ')); p.appendChild(document.createTextNode(m[2])); pane.appendChild(p); });
    section(pane, 'Routing');
    var ul = el('ul');
    d.routing.forEach(function (r) { ul.appendChild(el('li', null, 'turn ' + r[0] + ': ' + r[1] + (r[2] ? ' (' + r[2] + ')' : ''))); });
    pane.appendChild(ul);
    section(pane, 'Tool calls');
    table(pane, ['turn', 'tool', 'arguments', 'status', 'result'], d.tools);
    section(pane, 'Final-state diff');
    if (d.diff === null) { pane.appendChild(el('p', {'class': 'note'}, 'the record has no initial state (record format 1)')); }
    else if (!d.diff.length) { pane.appendChild(el('p', null, 'no change to the state')); }
    else { table(pane, ['path', 'before', 'after'], d.diff); if (d.diff_more) { pane.appendChild(el('p', {'class': 'note'}, '... and ' + d.diff_more + ' more paths')); } }
  }
  function openFromHash() {
    var m = /^#trial=(.+)$/.exec(decodeURIComponent(location.hash));
    if (m) { openTrial(m[1]); document.getElementById('explorer').scrollIntoView(); }
  }
  window.addEventListener('hashchange', openFromHash);
  window.addEventListener('load', function () {
    var blob = document.getElementById('explorer-data');
    inflate(blob.textContent.trim()).then(setup).catch(function (err) {
      document.getElementById('explorer-count').textContent = 'explorer unavailable: ' + err;
    });
  });
})();
</script>
"""


def explorer_html(data: ReportData) -> str:
    selects = "".join(
        f"<label>{name}<select name='{name}'><option value=''>all</option></select></label>"
        for name in ("system", "round", "domain", "capability", "difficulty", "outcome", "label")
    )
    return f"""
<h2 id="explorer-title">Trial explorer</h2>
<section id="explorer">
<p class="note">Every trial of every system and round. Filter, then click a row (or a task link in the flip tables) to open it.</p>
<form id="explorer-filters" class="filters" onsubmit="return false">{selects}<label>task<input name="q" placeholder="task id contains"></label></form>
<p id="explorer-count">loading...</p>
<div class="split">
<div class="index"><table><thead><tr><th>system</th><th>round</th><th>task</th><th>domain</th><th>difficulty</th><th>outcome</th><th>label</th></tr></thead><tbody id="explorer-rows"></tbody></table></div>
<div id="trial"><p class="note">Select a trial.</p></div>
</div>
<script type="application/octet-stream" id="explorer-data">{encoded_payload(data)}</script>
</section>
{SCRIPT}"""
