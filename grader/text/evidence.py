"""The offline evidence judge (spec A.2): deterministic, value-aware, reading sentences, not shapes.

The judge sees only the user instruction, the ordered criteria and the user-visible assistant messages.
The LLM judge implements the same `Judge` protocol; every verdict records which judge decided it.

The evidence judge is deterministic and value-aware (rules, each with a unit test in
tests/test_evidence_judge.py; user-facing summary in docs/judges.md):

1. Values. An evidence phrase that IS a value (``$40``, ``2026-12-02``, ``10:00``, ``CASE-5016``, ``3``) matches
   any written form of the same value (`grader.text.values`; counts also as number words, "three"); a count
   phrase (``3 items``, ``1 member``, ``30 days``) matches the count in any form followed by its words,
   singular or plural, with up to two words between ("three open items"); other phrases match as whole
   words (case-insensitive, ``$``/thousands separators ignored, a trailing ``*`` is a stem).
2. Wrong values. When a value item matches (an amount, percentage, date, time, or a count followed by what
   it counts), another value of the same kind (money with money, a count with a count of the same noun),
   named by no criterion of the task nor the user's instruction, not negated and not placed at another time
   or fact ("was", "previously", "from", "now", "remaining", "another" before it; "remaining", "left",
   "before" after it — "$381.60 was credited" is no prior value; a word the criterion itself names the
   fact with, "the remaining balance", is part of the label), contradicts it when it is stated for the same fact:
   next to the same criterion nouns (e.g. a second "balance", in any sentence), or stated together with
   the right value under its label ("refund of $45.00 and $54.00", "$45.00 (or $54.00)") unless a plural
   label or "both"/"each" makes them several facts ("refunds of $45.00 and $54.00"), or joined to it by a
   self-correction ("$22.50, or rather $42.50", "08:00, sorry, 16:00": then even a value the task names
   elsewhere is wrong). The criterion fails unless the transcript's LAST statement of the fact is the right
   value, made after every wrong one and marked as a correction ("sorry", "correction", "I misread") in its
   sentence or the one before (the correction rule; a right value merely restated later does not outweigh
   a wrong one). An unresolved conflict sets `contradiction_found`. Status words work the same way:
   another status of the same vocabulary (`grader.text.statuswords`, from the worlds' own `Literal` types) said
   of the same record id contradicts a matched status.
3. Negation. A match whose clause puts a negator within five words before it ("not", "never", "didn't",
   "no longer", "unable to", "nothing has been") does not count; a value only when the negator stands
   right before it ("not $40"); an id never (it names the record, the claim is elsewhere). When the
   criterion text itself states a phrase of the item negated ("does not have the HVAC skill"), negation
   is not held against that item (the reply's negation carries the criterion's meaning).
   `absent` phrases trip only when stated un-negated ("nothing has been granted" does not trip "granted").
4. Keyword lists. A match counts only inside a sentence that carries it: not inside a list-like sentence
   (mostly separators and content words, no grammar), not inside a bare keyword line (a short unit with no
   function word, no verb-like word and no `label: value` form) and not inside a message that is mostly
   such units, nor in a transcript that is mostly one-fragment messages (one phrase per message).
5. Every verdict quotes the sentence that matched and explains which phrase or value matched in which
   message.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence

from contracts.schema import ReplyCriterion
from grader.judge import CriterionJudgement, JudgeOutput
from grader.remembered import remembered
from grader.text.binding import third_party_holder, user_names  # round 8 (r8-subjects)
from grader.text.binding import account_role_swap, crossed_roles, other_kind, paired_lists, apposed_rival, per_head_swap, rival_thing_label, unlabelled_run, attributed, counted_other, counted_twice, denied, mislabelled, opposite_state, other_date, positive_for_negative, rival_label, set_aside, uncovered, value_labels, wh_dropped
from grader.text.conflicts import absent_corrected, period_mismatch, status_conflicts, value_conflicts
from grader.text.matching import phrase_hits
from grader.text.polarity import absence_criterion, denied_later, goal_only, in_failure_report, prospective, under_unsure, reversed_predicate, said_absent
from grader.text.units import Hit, Unit, negated_in_criterion, transcript_units
from grader.text.values import Value, find_values
from grader.text.withdrawal import offered_not_done, withdraw


# ---- the judge -----------------------------------------------------------------------------------


def _where(hit: Hit) -> str:
    return f"message {hit.message + 1}: {hit.sentence[:160]!r}"


def criteria_values(criteria: list[ReplyCriterion], instruction: str = "") -> list[Value]:
    """Every value any criterion of the task names (its text, evidence or absent phrases) and the user's
    instruction states: stating one of them is never a wrong value for another fact."""
    texts = [instruction]
    for c in criteria:
        texts.append(c.criterion)
        for item in c.evidence:
            texts.extend([item] if isinstance(item, str) else item)
    return [v for t in texts for v in find_values(t)]


_JUDGED: dict[Hashable, JudgeOutput] = {}
_JUDGED_MAX = 16384
"""`EvidenceJudge.judge_sync`'s verdicts by their inputs (cleared whole when full, as the consent rule's): room for a
whole measurement of the reply calibration set (~7,800 cases), so a second measurement of a split or a domain asks
nothing again (the calibration tests: 28.1 -> 24.6 s of CPU, +10 MB)."""


class EvidenceJudge:
    """Deterministic offline judge (rules in the module docstring)."""

    name = "evidence"

    async def judge(self, instruction: str, criteria: list[ReplyCriterion], assistant_messages: list[str]) -> JudgeOutput:
        return self.judge_sync(criteria, assistant_messages, instruction=instruction)

    def judge_sync(
        self, criteria: list[ReplyCriterion], assistant_messages: list[str], *, instruction: str = "", only: Sequence[int] | None = None
    ) -> JudgeOutput:
        """The verdicts of every criterion, in order (`only`: of those indices alone, for a battery that
        asks about one criterion; every criterion's values still count as the task's known values).
        Remembered per process (`_JUDGED`): the judge is a pure function of its inputs, and the same replies
        are judged again by a deterministic agent's every round, a task's battery cases, and each
        measurement of the calibration set."""
        key = (
            tuple(c.model_dump_json() for c in criteria),
            tuple(assistant_messages),
            instruction,
            None if only is None else tuple(only),
        )
        judged = remembered(_JUDGED, key, lambda: self._judge(criteria, assistant_messages, instruction, only), _JUDGED_MAX)
        return judged.model_copy(deep=True)

    def _judge(self, criteria: list[ReplyCriterion], assistant_messages: list[str], instruction: str, only: Sequence[int] | None) -> JudgeOutput:
        phrases = tuple(p for c in criteria for item in c.evidence for p in ([item] if isinstance(item, str) else item))
        units = withdraw(transcript_units(assistant_messages, phrases))
        all_units = [Unit(u.message, u.index, u.text, True) for u in units]
        known = criteria_values(criteria, instruction)
        criterion_words = re.findall(r"[a-z]+", " ".join(c.criterion.lower().replace("_", " ") for c in criteria))
        known_words = {p.lower().replace("_", " ").rstrip("*") for p in phrases} | set(criterion_words)
        known_words |= {f"{a} {b}" for a, b in zip(criterion_words, criterion_words[1:], strict=False)}
        results: list[CriterionJudgement] = []
        contradiction = False
        own_names = user_names(instruction)
        for index, criterion in enumerate(criteria):
            if only is not None and index not in only:
                continue
            judgement, conflicted = self._criterion(criterion, units, all_units, known, known_words, own_names)
            contradiction |= conflicted
            results.append(judgement)
        return JudgeOutput(judge=self.name, criteria=results, contradiction_found=contradiction)

    @staticmethod
    def _said_of_another(hit: Hit, phrase: str, index: int, items: tuple[tuple[str, ...], ...], criterion: str, labels: tuple[frozenset[str] | None, ...],
                         units: list[Unit], all_units: list[Unit], own_names: frozenset[str]) -> bool:
        """Whether a match states the phrase of another subject or fact than the criterion's, or not as the
        criterion's statement (`grader.text.binding`, `conflicts`, `polarity`; docs/judges.md): a value under
        another item's label, set aside or named for a negated fact, of another period or date; the opposite
        state, inside another item's match, a question phrase without its question word, under another fact's
        label (round 4); another role of its account (round 5); a count of another thing, a name beside another
        id of its kind, the thing of another clause, money of the other scope (round 6); predicates crossed
        between two subjects, a pair of lists placing it against another record, a record taken as another kind
        (round 7); another person's holding (round 8); a bare run of values; said as still to come."""
        item = items[index]
        return (
            mislabelled(hit, index, labels)
            or set_aside(hit, item, items, criterion, units)
            or positive_for_negative(hit, item, criterion, all_units)
            or period_mismatch(hit, criterion)
            or other_date(hit, items, criterion)
            or wh_dropped(hit, phrase)
            or counted_twice(hit, phrase, items, index)
            or opposite_state(hit, phrase, item, criterion) is not None
            or rival_label(hit, item, criterion) is not None
            or account_role_swap(hit, item, criterion) is not None
            or counted_other(hit, item, criterion, units) is not None
            or apposed_rival(hit, item) is not None
            or rival_thing_label(hit, item, criterion) is not None
            or per_head_swap(hit, criterion) is not None
            or crossed_roles(hit, index, items, criterion) is not None
            or paired_lists(hit, item, criterion, units) is not None
            or other_kind(hit, criterion) is not None
            or third_party_holder(hit, criterion, own_names) is not None
            or unlabelled_run(hit, index, labels)
            or prospective(hit, phrase, criterion)
            or goal_only(hit, phrase, criterion)
            or in_failure_report(hit, criterion)
            or under_unsure(hit)
            or denied_later(hit, criterion)
        )

    def _criterion(self, criterion: ReplyCriterion, units: list[Unit], all_units: list[Unit], known: list[Value], known_words: set[str], own_names: frozenset[str] = frozenset()) -> tuple[CriterionJudgement, bool]:
        found: list[tuple[str, Hit]] = []
        missing: list[str] = []
        notes: list[str] = []
        evidence_phrases = [p for item in criterion.evidence for p in ([item] if isinstance(item, str) else item)]
        items = tuple(tuple([item] if isinstance(item, str) else item) for item in criterion.evidence)
        labels = value_labels(criterion.criterion, items)
        for index, item in enumerate(criterion.evidence):
            phrases = [item] if isinstance(item, str) else item
            hit: tuple[str, Hit] | None = None
            negation = not negated_in_criterion(phrases, criterion.criterion)
            for phrase in phrases:
                stated = phrase_hits(phrase, units, negation=negation)
                if not stated and negation and absence_criterion(phrase, criterion.criterion):  # (round 7, r7-turns)
                    stated = [h for h in phrase_hits(phrase, units, negation=False) if said_absent(h)]  # "still no proof of address on file"
                if not negation:  # the criterion states it negated: said of its subject, so must the reply ("Mei Tanaka is HVAC-qualified" is no match)
                    stated = [h for h in stated if denied(h) or not attributed(h, items[index], criterion.criterion)]
                hits = [h for h in uncovered(stated, items[index], criterion.criterion) if not self._said_of_another(h, phrase, index, items, criterion.criterion, labels, units, all_units, own_names)]
                if stated and not hits and all(prospective(h, phrase, criterion.criterion) for h in stated):
                    notes.append(f"{phrase!r} is said only as still to come or as a guess ({_where(stated[0])})")
                elif stated and not hits:
                    notes.append(f"{phrase!r} is stated only of another subject or fact ({_where(stated[0])})")
                if hits:
                    hit = (phrase, hits[0])
                    conflicts = value_conflicts(hits, units, criterion.criterion, known, evidence_phrases) or status_conflicts(phrase, hits, units, known_words)
                    unresolved = [c for c in conflicts if not c.resolved]
                    if unresolved:
                        wrong = unresolved[0].wrong
                        what = f"{wrong.value.kind} for the same fact, {wrong.value.text!r}" if wrong.value else "status of the same record"
                        why = f"{phrase!r} is stated ({_where(hits[0])}) but so is another {what} ({_where(wrong)})"
                        return CriterionJudgement(passed=False, quote=wrong.sentence, explanation=why), True
                    if conflicts:
                        earlier = conflicts[0].wrong.value.text if conflicts[0].wrong.value else conflicts[0].wrong.sentence[:80]
                        notes.append(f"an earlier statement said {earlier!r}, corrected: the last statement of the fact is {phrase!r}")
                    break
                if phrase_hits(phrase, all_units, negation=negation):
                    notes.append(f"{phrase!r} occurs only in a keyword list, not in a sentence")
                elif phrase_hits(phrase, units, negation=False):
                    notes.append(f"{phrase!r} occurs only negated")
            if hit is None:
                missing.append(" | ".join(phrases))
            else:
                found.append(hit)
        offer = offered_not_done(criterion.criterion, units) if not missing else None
        if offer is not None:
            why = f"the reply offers to do what the criterion says was done, and never says it was done: {offer[:160]!r}"
            return CriterionJudgement(passed=False, quote=offer, explanation=why), False
        if not missing and found and (turned := reversed_predicate(criterion.criterion, items, units)) is not None:
            why = f"the reply states the criterion's predicate the other way round: {turned[:160]!r}"
            return CriterionJudgement(passed=False, quote=turned, explanation=why), False
        if missing:
            why = "no visible reply states: " + "; ".join(repr(m) for m in missing)
            return CriterionJudgement(passed=False, explanation=why + (f" ({'; '.join(notes)})" if notes else "")), False
        for phrase in criterion.absent or []:
            hits = phrase_hits(phrase, all_units, carried_only=False, forms=False)
            hits = [h for h in hits if not absent_corrected(phrase, h, all_units, hits)]  # r10-words: corrected later
            if hits:
                why = f"a visible reply says what it must not: {phrase!r} ({_where(hits[0])})"
                return CriterionJudgement(passed=False, quote=hits[0].sentence, explanation=why), False
        if not found:  # a mention guard (absent phrases only): nothing wrong was stated, nothing to quote
            return CriterionJudgement(passed=True, quote="", explanation="no visible reply states any of: " + "; ".join(repr(a) for a in criterion.absent or [])), False
        matched = "; ".join(
            f"{phrase!r} as {hit.value.kind} {hit.value.text!r} in {_where(hit)}" if hit.value else f"{phrase!r} in {_where(hit)}"
            for phrase, hit in found
        )
        why = "matched " + matched + (f" ({'; '.join(notes)})" if notes else "")
        return CriterionJudgement(passed=True, quote=found[0][1].sentence, explanation=why), False