"""How the offline consent rule reads a message: general English, from a reviewed lexicon.

`grader/consent_lexicon.yaml` lists the yes-forms, declines, deferrals, request openers, condition words
and action words; this module turns a message into what the rule decides from (`Reading`): whether it
affirms, declines, defers or requests, its conditions, and what it names. Nothing here knows a task: the
rule (`grader.consent`) ties a reading to a gated call through the call's own action words and values.

Reading is clause by clause. A message is split into clauses at sentence ends, commas, semicolons,
dashes and "but"; a clause is read after its leading fillers ("ok then", "great, now"). Forms match whole
words, case- and punctuation-insensitive, contractions expanded ("don't" = "dont" = "do not").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from contracts.yaml_io import read_yaml
from grader.text.rx import rx
from grader.text.values import Value, find_values

LEXICON_PATH = Path(__file__).with_name("consent_lexicon.yaml")


class ConsentLexicon(BaseModel):
    """The lexicon file's shape (validated: a typo in a key fails loudly, not silently)."""

    contractions: dict[str, str]
    emoji: dict[str, str]
    yes_forms: list[str] = Field(min_length=1)
    negators: list[str]
    decline_forms: list[str]
    takebacks: list[str]
    not_declines: list[str]
    deferral_forms: list[str]
    deferral_phrases: list[str]
    weak_deferrals: list[str]
    deferral_strengtheners: list[str]
    acknowledging_yes: list[str]
    request_openers: list[str]
    request_markers: list[str]
    elliptical_openers: list[str]
    fillers: list[str]
    condition_openers: list[str]
    negative_condition_openers: list[str]
    qualifying_openers: list[str]
    manner_tails: list[str]
    bound_openers: list[str]
    trailing_upper_bounds: list[str]
    trailing_lower_bounds: list[str]
    trailing_date_before: list[str]
    trailing_date_after: list[str]
    predicate_words: list[str]
    other_instance: list[str]
    action_subjects: list[str]
    vacuous_conditions: list[str]
    feasibility_conditions: list[str]
    upper_bounds: list[str]
    lower_bounds: list[str]
    date_before: list[str]
    date_after: list[str]
    proposal_cues: list[str]
    actions: dict[str, list[str]]
    objects: dict[str, list[str]]
    generic_actions: list[str]
    counter_markers: list[str]
    keep_forms: list[str]
    remainder_words: list[str]
    after_markers: list[str]
    cost_words: list[str]
    exact_counts: list[str]
    times_of_day: dict[str, tuple[int, int]]
    value_aliases: dict[str, dict[str, list[str]]]
    imperative_verbs: list[str] = Field(default_factory=list)
    desire_verbs: list[str] = Field(default_factory=list)
    information_verbs: list[str] = Field(default_factory=list)
    outcome_predicates: list[str] = Field(default_factory=list)
    sequencers: list[str] = Field(default_factory=list)
    exclusions: list[str] = Field(default_factory=list)
    approval_predicates: list[str] = Field(default_factory=list)
    unchanged_predicates: list[str] = Field(default_factory=list)
    condition_adverbials: list[str] = Field(default_factory=list)
    choice_verbs: list[str] = Field(default_factory=list)
    other_markers: list[str] = Field(default_factory=list)
    rank_words: dict[str, list[str]] = Field(default_factory=dict)
    delegations: list[str] = Field(default_factory=list)


@lru_cache(maxsize=1)
def lexicon() -> ConsentLexicon:
    return ConsentLexicon.model_validate(read_yaml(LEXICON_PATH.read_text()))


_WORDS = re.compile(r"[a-z0-9][a-z0-9'$.:/-]*[a-z0-9]|[a-z0-9]")


def words(text: str) -> list[str]:
    """Lowercased words with contractions expanded; punctuation other than inside values dropped."""
    return list(_words(text))


_MODIFIERS = re.compile("[\U0001F3FB-\U0001F3FF\uFE0E\uFE0F]")
_ELONGATED = re.compile(r"([a-z])\1{2,}")


def spelled_out(text: str) -> str:
    """The text with emoji read as words ("\U0001F44D" -> "yes") and letters stretched for emphasis squeezed
    ("yesss", "okkk", "sooo"): what the rule's word matching reads."""
    emoji = lexicon().emoji
    text = _MODIFIERS.sub("", text)
    if any(ord(c) > 0x2000 for c in text):
        text = "".join(f" {emoji[c]} " if c in emoji else c for c in text)
    return _ELONGATED.sub(r"\1", text.lower())


@lru_cache(maxsize=16384)
def _words(text: str) -> tuple[str, ...]:
    text = spelled_out(text).replace("\u2019", "'").replace("\u2018", "'")
    out: list[str] = []
    found = _WORDS.findall(text)
    for at, word in enumerate(found):
        expanded = lexicon().contractions.get(word)
        if expanded is None and word.endswith("'s") and len(word) > 3 and at + 1 < len(found) and found[at + 1] in _COPULA_NEXT:
            expanded = word[:-2] + " is"  # round 10: "PayPal's fine", "the card's easiest", "Oliver's the one": "'s" is "is"
        out.extend(expanded.split() if expanded else [word.strip("'")])
    return tuple(w for w in out if w)


_COPULA_NEXT = frozenset((
    "fine", "good", "great", "ok", "okay", "perfect", "best", "better", "easier", "easiest", "simpler", "simplest", "quicker",
    "quickest", "faster", "fastest", "cheaper", "cheapest", "ideal", "grand", "brilliant", "lovely", "right", "correct", "wrong",
    "preferable", "safer", "safest", "handier", "handiest", "nicer", "nicest", "cool", "enough", "plenty", "the", "a", "an",
    "what", "probably", "definitely", "also", "too", "still", "not", "no", "just", "all", "spot", "sound", "ace", "alright",
    "superb", "excellent", "smart", "wise", "sensible", "easy", "simple", "quick", "fast", "cheap", "my", "our", "ours", "mine",
))
"""Words after "X's" that make the "'s" a copula, not a possessive ("PayPal's fine" = "PayPal is fine"; "Oliver's
the one" = "Oliver is the one"; a possessive is followed by a noun: "Oliver's case")."""


@lru_cache(maxsize=4096)
def _form(phrase: str) -> tuple[str, ...]:
    return tuple(words(phrase))


def starts_with(clause: list[str], phrase: str) -> bool:
    form = _form(phrase)
    return bool(form) and tuple(clause[: len(form)]) == form


def find(clause: list[str], phrase: str) -> list[int]:
    """Word positions where `phrase` occurs in `clause` (a trailing `*` on its last word is a stem)."""
    form = _form(phrase.rstrip("*"))
    stem = phrase.endswith("*")
    if not form or (not stem and form[0] not in clause) or (stem and len(form) == 1 and not any(w.startswith(form[0]) for w in clause)):
        return []
    out = []
    for i in range(len(clause) - len(form) + 1):
        window = clause[i : i + len(form)]
        if tuple(window[:-1]) == form[:-1] and (window[-1] == form[-1] or (stem and window[-1].startswith(form[-1]))):
            out.append(i)
    return out


_CLAUSE_SPLIT = re.compile(r"(?<=[.!?;])\s+|,(?!\d{3})|(?<!\d):(?!\d)|[;\n]|\s[-\u2013\u2014]+\s|\bbut\b", re.I)


_SENTENCE_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+")


_EMOJI = re.compile("([\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u2300-\u23FF])")


def clauses(text: str) -> list[tuple[str, list[str], list[str], str]]:
    """(raw clause, its words, the words of its sentence, the sentence) for every clause of a message. An
    emoji ends a sentence, as a full stop would ("did the reset \U0001F389 go ahead and close it"): chat
    writers put one where a full stop goes; an emoji read as a word ("\U0001F44D" -> "yes") is its own clause."""
    out = []
    text = _EMOJI.sub(r" \1. ", _MODIFIERS.sub("", text)) if any(ord(c) > 0x2000 for c in text) else text
    for sentence in _SENTENCE_SPLIT.split(text):
        sentence_words = words(sentence)
        for raw in _CLAUSE_SPLIT.split(sentence):
            if raw and raw.strip():
                clause_words = words(raw)
                if clause_words:
                    out.append((raw.strip(), clause_words, sentence_words, sentence.strip()))
    return out


def strip_fillers(clause: list[str]) -> list[str]:
    """The clause without its leading fillers ("ok then", "great, now", "thanks. and")."""
    fillers = lexicon().fillers
    while clause:
        filler = opens_with_any(clause, fillers)
        if filler is None:
            break
        clause = clause[len(_form(filler)) :]
    return clause


def negated_at(clause: list[str], position: int, window: int = 3) -> bool:
    """A negator within `window` words before `position` in the same clause ("do not go ahead")."""
    return any(w in lexicon().negators for w in clause[max(0, position - window) : position])


def opens_with_any(clause: list[str], phrases: Sequence[str]) -> str | None:
    """The longest of `phrases` the clause opens with (the first listed among equally long ones)."""
    if not clause:
        return None
    for form, phrase in _openings(tuple(phrases)).get(clause[0], ()):
        if tuple(clause[: len(form)]) == form:
            return phrase
    return None


@lru_cache(maxsize=512)
def _openings(phrases: tuple[str, ...]) -> dict[str, tuple[tuple[tuple[str, ...], str], ...]]:
    """The phrases by their first word, longest first (stable): a clause is compared only with the phrases
    that open with its own first word, in the order a scan of every phrase, longest first, would meet them."""
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for phrase in sorted(phrases, key=lambda p: -len(_form(p))):
        form = _form(phrase)
        if form:
            index.setdefault(form[0], []).append((form, phrase))
    return {first: tuple(entries) for first, entries in index.items()}


@dataclass(frozen=True)
class Condition:
    """A condition the customer put on their answer: its text, and the bound it sets when it is one the
    record can check (`kind`: "amount", "remainder" or "date", with `direction` "max" or "min"; "feasible";
    None: read on the call's other values when checked - a count, a time, a day, a code, a text argument)."""

    text: str
    kind: str | None = None
    direction: str | None = None
    bound: Any = None
    noun: tuple[str, ...] = ()
    sentence: str = ""
    """The sentence the condition stands in: it gates the decision of that sentence."""
    raw: str = ""
    """The condition as written (its values keep their form)."""
    negative: bool = False
    """Opened by "unless": the answer grants only when the condition does NOT hold."""


@dataclass
class Reading:
    """What one customer message says, for the consent rule."""

    text: str
    affirms: bool = False
    declines: bool = False
    defers: bool = False
    requests: list[list[str]] = field(default_factory=list)
    """The words of every sentence with a clause that asks the agent to act ("please close it", "can you
    refund it?", "assign Sam Okoro, TECH-107.")."""
    negated_actions: list[list[str]] = field(default_factory=list)
    """The words of every clause that tells the agent not to act ("don't cancel it")."""
    question: bool = False
    opens_refusal: bool = False
    """The answer opens with a decline or a deferral ("no, ...", "not yet ...")."""
    closes_refusal: bool = False
    """The answer's last deciding clause puts off or takes back a yes given before it in the same answer
    ("OK, let me think about it", "Yes, but I need to check with my wife first", "Sure. Actually, no.")."""
    conditions: list[Condition] = field(default_factory=list)
    request_texts: list[str] = field(default_factory=list)
    """The sentences of `requests`, as written (their values keep their form: "$1,000", "14:00")."""
    affirm_texts: list[str] = field(default_factory=list)
    """The sentences of the yes-forms."""
    statements: list[list[str]] = field(default_factory=list)
    """Clauses that are neither questions nor requests (a choice: "the Visa, PM-5550")."""
    statement_texts: list[str] = field(default_factory=list)
    """`statements` as written."""
    condition_texts: list[str] = field(default_factory=list)
    """The written clauses holding a condition (a value in them is the condition's, not a choice)."""

    @property
    def decides(self) -> bool:
        return self.affirms or bool(self.requests) or bool(self.statements)

    def without_conditions(self, sentence: str) -> str:
        """`sentence` with its condition clauses left out ("Yes, if it's before 14:00" -> "Yes, ")."""
        for raw in self.condition_texts:
            sentence = sentence.replace(raw, " ")
        return sentence


def _is_question(raw: str, clause: list[str]) -> bool:
    return raw.rstrip().endswith("?") or (bool(clause) and clause[0] in {"what", "how", "which", "when", "where", "why", "who", "is", "are", "does", "did", "was", "am"})


MODALS = frozenset({"can", "could", "would", "will"})
_PASSIVE_MODALS = ("can be", "could be", "should be", "may be", "must be", "needs to be", "need to be", "has to be", "have to be",
                   "can now be", "should now be", "is to be", "are to be", "is ready to be", "are ready to be", "can go", "is good to go",
                   "are good to go", "can be marked", "is ok to", "is okay to", "is fine to", "are ok to", "are okay to", "are fine to")


_FUTURE = frozenset({"will", "would"})
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "his", "her", "their", "its", "this", "that", "these", "those", "any", "all"})
""""Will the freeze stop my payroll?", "would the refund go to my card?": a question about what the action
does, not a request ("could the technician come at 10?" is one)."""
_BARE_ACKS = frozenset({"ok", "okay", "k", "kk", "alright", "all right", "right", "ok then", "okay then", "alright then", "i see", "hmm", "hm"})
"""Acknowledgements that answer nothing when a question follows ("Ok. What's the 45 made up of?")."""


def _is_request(clause: list[str]) -> bool:
    """A clause asking the agent to act: a request opener, an action word first (imperative), a modal
    question about someone other than the speaker ("could Ben do it?"; "can I ...?" asks for information),
    or a passive request ("CHG-4006 can be set to implemented", "the case should be closed")."""
    core = strip_fillers(clause)
    if opens_with_any(core, lexicon().request_openers):
        return True
    if any(find(clause, marker) for marker in lexicon().request_markers):
        return True
    # "would marking it implemented stop us ...?", "could moving it to Friday cost more?": a gerund after the modal is the
    # question's subject (what the action would do), not the agent asked to act
    gerund = len(core) > 1 and len(core[1]) > 4 and core[1].endswith("ing") and core[1] not in _NOT_GERUNDS
    if len(core) > 1 and core[0] in MODALS and core[1] not in {"i", "it", "that", "this", "there"} and not (core[0] in _FUTURE and core[1] in _DETERMINERS) and not gerund:
        return True
    if core and core[0] not in MODALS and core[0] not in {"i", "we", "you"} and any(find(core, p) for p in _PASSIVE_MODALS) and not any(w in lexicon().negators for w in core):
        return True
    if len(core) > 1 and core[0] in _imperatives() and core[1] not in _SUBJECTS:
        return True  # an imperative in general words ("find mine and close it", "hook that segment up", "pick a tech who's free")
    return bool(core) and any(starts_with(core, form) for forms in lexicon().actions.values() for form in forms)


_NOT_GERUNDS = frozenset({"nothing", "anything", "something", "everything", "thing", "things", "bring", "sing", "ring", "wing", "king", "ping", "sting", "evening", "morning", "spring"})


_SUBJECTS = frozenset({"i", "we", "you", "he", "she", "they", "is", "are", "was", "were", "has", "have", "had", "will", "would",
                       "can", "could", "should", "did", "does", "do", "not"})
"""A word after a clause's first word that makes that word a noun or a name, not an imperative verb ("Mark told
me ...", "log is full", "set was fine")."""


@lru_cache(maxsize=1)
def _imperatives() -> frozenset[str]:
    return frozenset(lexicon().imperative_verbs)


def desires(core: list[str]) -> bool | None:
    """A clause saying that someone wants or needs something done ("Sofia wants the admin role removed", "I need
    that order gone", "Ben would like it closed", "the boss wants you to bump it"): True; negated ("I don't want
    it cancelled", "she never wanted the role removed"): False; no desire verb: None. A desire verb opening the
    clause is read elsewhere (a request opener, "want to know ...")."""
    for verb in lexicon().desire_verbs:
        for at in find(core, verb):
            if at == 0 or len(core) <= at + len(_form(verb)):
                continue
            if core[at + len(_form(verb))] in ("to", "some", "more", "a", "an") and (at + len(_form(verb)) + 1 >= len(core) or core[at + len(_form(verb)) + 1] not in ("you", "it", "that", "this", "them")):
                continue  # "I'd like to know", "we need some time", "I want a word": no act asked of the agent
            after = core[at + len(_form(verb)) :]
            if after[0] in _PRONOUN_OBJECTS and not any(_resulting_state(w) for w in after[1:5]):
                continue  # "my accountant needs it that way", "she wants it for her records": a thing wanted, no act
            return not negated_at(core, at)
    return None


_PRONOUN_OBJECTS = frozenset({"it", "that", "this", "them", "those", "these"})
_STATE_PARTICLES = frozenset({"done", "gone", "shut", "set", "put", "sent", "cut", "off", "out", "taken", "given", "rid", "back",
                              "up", "down", "away", "through", "open", "frozen", "paid", "made", "built", "run", "undone",
                              "to", "sorted", "fixed", "closed", "moved", "cancelled", "canceled", "removed", "changed"})


def _resulting_state(word: str) -> bool:
    """A word saying what is to become of the thing wanted: a past participle ("closed", "taken off", "gone") or a
    particle of a phrasal verb ("off", "through"), or "to" before a verb ("wants you to bump it")."""
    return word in _STATE_PARTICLES or (len(word) > 4 and word.endswith("ed"))


def asks_information(core: list[str]) -> bool:
    """A request whose verb asks for information, not for the action ("can you tell me what I'd have left
    first?", "could you let me know the fee", "please explain the charge", "show me the options"): a question."""
    lex = lexicon()
    opener = opens_with_any(core, lex.request_openers)
    rest = core[len(_form(opener)) :] if opener else core
    return bool(rest) and opens_with_any(rest, lex.information_verbs) is not None


@lru_cache(maxsize=1)
def _outcome_forms() -> tuple[str, ...]:
    return tuple(lexicon().outcome_predicates)


def asks_outcome(raw: str, core: list[str]) -> bool:
    """Round 9: a modal question on whether a thing would work or count, not asking anyone to act ("would $950 still
    go through?", "can store credit be used on sale items?", "will the warranty still apply?"): its subject is not
    the agent ("could you make it work?" asks for an act) and its verb is one of `outcome_predicates`."""
    if not raw.rstrip().endswith("?") or len(core) < 3 or core[0] not in MODALS or core[1] in ("you", "u", "ya", "we"):
        return False
    rest = core[2:]
    return any(find(rest, form) for form in _outcome_forms())


def sequenced(sentence: str) -> bool:
    """A sentence that opens with a sequencer and a colon ("Next: Quill & Ink, $89.49, on the card"; "Next up: time
    zone America/New_York"; "Then: the 14:00 slot"): what follows the colon is the next request, said without a verb."""
    head, colon, rest = sentence.partition(":")
    return bool(colon) and bool(rest.strip()) and not rest[:1].isdigit() and " ".join(words(head)) in lexicon().sequencers


def _condition(raw: str, clause: list[str], opener: str) -> Condition:
    lex = lexicon()
    text = " ".join(clause)
    values = [v for v in spoken_values(raw) if v.kind in ("number", "date")]
    rest = clause[len(_form(opener)) :]
    negative = opener in lex.negative_condition_openers
    noun = tuple(w for w in rest[:4] if w.isalpha() and w not in {"the", "it", "is", "a", "an", "my", "that", "this", "i", "you", "we", "if", "be", "will", "would", "comes", "to", "total"})
    if any(find(rest, form) for form in lex.feasibility_conditions) and not any(v.kind == "number" for v in values if "$" in raw):
        return Condition(text, "feasible", None, None, noun, raw=raw, negative=negative)
    noun = tuple(w for w in noun if not any(w in _form(b) for b in lex.upper_bounds + lex.lower_bounds + lex.date_before + lex.date_after))
    numbers = [v for v in values if v.kind == "number"]
    kept_to = any(find(rest, b) for b in lex.upper_bounds + lex.lower_bounds if b.startswith("keep"))  # "keep it to $150": a cap
    if numbers and not kept_to and any(find(rest, w) for w in lex.remainder_words):
        # "as long as I keep at least 4,000", "only if that leaves me $50": a bound on what is left
        direction = _direction(clause, lex.upper_bounds, lex.lower_bounds) or "min"
        return Condition(text, "remainder", direction, max(v.value for v in numbers), noun, raw=raw, negative=negative)  # type: ignore[type-var]
    if not numbers:
        # "as long as it's no more than the limit", "provided it stays under my balance": the bound is a value the
        # agent stated for that noun, read when the condition is checked
        for bound in sorted(lex.upper_bounds + lex.lower_bounds, key=lambda b: -len(_form(b))):
            for at in find(rest, bound):
                after = [w for w in rest[at + len(_form(bound)) :][:4] if w not in ("the", "my", "our", "your", "daily", "current", "what", "you")]
                if after and after[0].isalpha() and len(after[0]) > 3 and after[0] not in _NOT_NOUNS:
                    direction = _direction(clause, lex.upper_bounds, lex.lower_bounds)
                    if direction:
                        return Condition(text, "amount", direction, None, (after[0],), raw=raw, negative=negative)
    for value in values:
        if value.kind == "number" and ("$" in raw or any(find(clause, b) for b in lex.upper_bounds + lex.lower_bounds)):
            direction = _direction(clause, lex.upper_bounds, lex.lower_bounds)
            if direction and not _counted(raw, value):
                return Condition(text, "amount", direction, value.value, noun, raw=raw, negative=negative)
        if value.kind == "date":
            direction = _direction(clause, lex.date_before, lex.date_after)
            if direction:
                return Condition(text, "date", direction, value.value, noun, raw=raw, negative=negative)
    return Condition(text, None, None, None, noun, raw=raw, negative=negative)


def _counted(raw: str, value: Value) -> bool:
    """The number counts something named right after it ("no more than 2 bags"), not an amount."""
    after = re.match(r"\s+([a-z]+)", raw[value.end :].lower())
    return "$" not in raw[max(0, value.start - 2) : value.end] and after is not None and after.group(1) not in _NOT_NOUNS and len(after.group(1)) > 2


_NOT_NOUNS = frozenset("and or but then dollars dollar usd bucks euros pounds total in on at for to of the a an is it that this please thanks "
                       "tops max maximum min minimum latest earliest".split())


def _direction(clause: list[str], upper: list[str], lower: list[str]) -> str | None:
    """"max" or "min" by the longest bound phrase in the clause ("no more than" is an upper bound though
    it holds "more than")."""
    lex = lexicon()
    dated = upper is lex.date_before or lower is lex.date_after
    if any(_ends_with(clause, t) for t in (lex.trailing_date_before if dated else lex.trailing_upper_bounds)):
        return "max"  # "$40 max", "25k tops", "Friday at the latest"
    if any(_ends_with(clause, t) for t in (lex.trailing_date_after if dated else lex.trailing_lower_bounds)):
        return "min"
    found = [(len(_form(p)), "max", at) for p in upper for at in find(clause, p)] + [(len(_form(p)), "min", at) for p in lower for at in find(clause, p)]
    if not found:
        return None
    _, direction, at = max(found)
    if negated_at(clause, at):  # "doesn't exceed $45", "not over $50"
        return "max" if direction == "min" else "min"
    return direction


def _vacuous(clause: list[str]) -> bool:
    """A condition that gates nothing ("if there is one", "if needed"); not when a value or a part of the
    day follows it ("only if you can do 8am" gates on the time)."""
    days = lexicon().times_of_day
    for v in lexicon().vacuous_conditions:
        for at in find(clause, v):
            rest = clause[at + len(_form(v)) :]
            if not any(any(c.isdigit() for c in w) or w in days or w in _HOUR_WORDS or w in ("noon", "midday", "midnight") for w in rest):
                return True
    return False


def _condition_at(core: list[str]) -> tuple[int, str] | None:
    """Where a condition opens in the clause, and its opener ("go ahead if it's under $30" -> 2, "if")."""
    lex = lexicon()
    best: tuple[int, str] | None = None
    for opener in sorted(lex.condition_openers, key=lambda o: -len(_form(o))):
        for at in find(core, opener):
            if best is None or at < best[0]:
                best = (at, opener)
    return best


def _NO_YES() -> list[str]:
    """Yes-forms that open with "no" or "not" ("no objection", "not a problem"): no decline."""
    return [f for f in lexicon().yes_forms if f.split()[0] in ("no", "not")]


def _negated(core: list[str]) -> bool:
    """A yes-form or an action negated in its clause ("I'm not fine with that", "please never cancel it");
    not a code named in words ("not as store credit" negates the destination, not the refund)."""
    lex = lexicon()
    if not any(w in lex.negators for w in core[:5]):
        return False
    forms = list(lex.yes_forms) + [f for fs in lex.actions.values() for f in fs]
    coded = _alias_positions(core)
    return any(negated_at(core, pos) and pos not in coded for form in forms for pos in find(core, form))


def _alias_positions(clause: list[str]) -> set[int]:
    out: set[int] = set()
    for codes in lexicon().value_aliases.values():
        for code, forms in codes.items():
            for form in [*forms, code.replace("_", " ")]:
                for at in find(clause, form):
                    out |= set(range(at, at + len(_form(form))))
    return out


_FIRST_PERSON = frozenset({"i", "we", "me", "us", "my", "our"})
_ADDRESSED = ("hold", "not", "wait", "before")
"""Deferral phrases that put the decision off whoever the clause is about ("can you hold off until Friday?")."""


def deferral(clause: list[str], core: list[str]) -> str | None:
    """How the clause puts the decision off: "strong" (it puts off a yes given before it in the answer:
    "let me think about it", "hold off", "I'll need to run it by my manager", "can I sleep on it?"), "weak"
    (only when nothing else in the answer decides: "I'll let you know"), or None. A deferral opens the
    clause (`deferral_forms`), or stands anywhere in a clause about the speaker (`deferral_phrases`)."""
    lex = lexicon()
    opening = opens_with_any(clause, lex.deferral_forms) or opens_with_any(core, lex.deferral_forms)
    inside = None
    if opening is None:
        person = bool(_FIRST_PERSON & set(core))
        inside = next((p for p in sorted(lex.deferral_phrases, key=lambda p: -len(_form(p))) if (person or p.startswith(_ADDRESSED)) and find(core, p)), None)
    found = opening or inside
    if found is None:
        # "let me ring my bank first", "I'll have to run it past finance first": a plan of the speaker's own before the
        # decision puts it off when nothing else in the answer decides ("Yeah, cancel it. I'll have a word with her
        # first." grants: the request comes before the plan)
        return "weak" if _plans_first(core) else None
    strengthen = {w for s in lex.deferral_strengtheners for w in _form(s)}
    weak = found in lex.weak_deferrals and not strengthen & set(core)
    if weak and inside is None and any(find(core, p) for p in lex.deferral_phrases if p not in lex.weak_deferrals):
        weak = False
    return "weak" if weak else "strong"


_SPEAKER_PLANS = ("let me", "let us", "i will", "we will", "i have to", "we have to", "i need to", "we need to", "i must", "we must",
                  "i should", "we should", "i ought to", "i have got to", "we have got to", "i got to", "i gotta", "i would have to",
                  "we would have to", "i would need to", "we would need to", "i am going to", "we are going to", "i want to", "we want to",
                  "i would like to", "we would like to", "i would rather", "i had better", "we had better", "i will need to",
                  "we will need to", "i will have to", "we will have to", "i will just", "i just need to", "i just have to")
"""Openers of a clause in which the speaker plans an act of their own ("let me ring my bank first", "I'll have to run $299 a
month past finance first", "we need to sign the contract beforehand")."""


def _plans_first(core: list[str]) -> str | None:
    """A clause in which the speaker says they will do something of their own first ("let me ring my bank first to check",
    "I'll have to run it past finance first", "we must get the PO signed beforehand"): the decision waits on it. Not "first
    thing" (a time: "I'll pick it up first thing") nor a yes-form opening ("let me know ... first" is read elsewhere)."""
    opener = opens_with_any(core, list(_SPEAKER_PLANS))
    if opener is None:
        return None
    rest = core[len(_form(opener)) :]
    if not rest or rest[0] in ("know", "you", "just"):
        return None
    for at, w in enumerate(rest):
        if (w == "first" and rest[at + 1 : at + 2] != ["thing"]) or w in ("beforehand", "before-hand"):
            return opener
    return None


_BARE_DECLINE_TAIL = frozenset({"thanks", "thank", "you", "sorry", "actually", "wait", "then", "please", "not", "do", "leave", "keep", "forget", "scratch", "i", "way"})


def _late_decline(clause: list[str], core: list[str], form: str) -> bool:
    """A decline that takes back a yes given before it in the same answer ("Sure. Actually, no."): a whole
    clause ("Yes. No."), a take-back ("on second thought", "forget it"), or "no" followed by a refusal
    ("no, leave it")."""
    if opens_with_any(clause, lexicon().takebacks) or opens_with_any(core, lexicon().takebacks):
        return True
    rest = core[len(_form(form)) :] if starts_with(core, form) else None
    return rest is not None and (not rest or (form in ("no", "nope", "nah") and rest[0] in _BARE_DECLINE_TAIL))


@lru_cache(maxsize=8192)
def read(text: str) -> Reading:
    """Read one customer message, clause by clause, in this order: a condition (kept apart, the rest of
    the clause read on); a deferral; a decline; a negated yes-form or action; a question (not a request);
    a yes-form; a request; else a statement (see the module docstring). The answer's last deciding clause
    may put off or take back a yes given before it (`closes_refusal`)."""
    lex = lexicon()
    reading = Reading(text=text)
    last: str | None = None  # "grant" or "refuse": the last deciding clause so far
    acknowledged = False  # every yes so far only acknowledges ("ok", "sure")
    for position, (raw, clause, sentence, sentence_text) in enumerate(clauses(text)):
        core = strip_fillers(clause)
        assurance: str | None = None
        opening = position == 0 or not (reading.affirms or reading.requests or reading.statements or reading.question)
        condition = None if _vacuous(core) or raw.rstrip().endswith("?") else _condition_at(core)
        whole = None if condition is not None or _vacuous(clause) or raw.rstrip().endswith("?") else _condition_at(clause)
        if whole is not None and whole[0] < len(clause) - len(core):
            core, condition = clause[whole[0] :], (0, whole[1])  # "so long as ...": the filler opened the condition
        if condition is None and core[:1] in (["though"], ["however"]) and _qualifies(clause, core[1:]):
            core, condition = core[1:], (0, "")  # "alright, though cap it at 100"
        if condition is None and _after_but(raw, sentence_text) and not raw.rstrip().endswith("?"):
            restricted = opens_with_any(core, _RESTRICTIONS)
            if restricted:  # "yes but only the ones in North America": the yes is limited to what follows
                condition = (0, restricted)
            elif _qualifies(clause, core):  # "yes, but put 9:40", "move it, but not before 11": what follows changes the yes
                condition = (0, "")
            elif opens_with_any(core, _REMAINDER_OPENERS) and any(v.kind == "number" for v in spoken_values(raw)):
                condition = (0, "")  # "send what's there, but leave $150 in it": a bound on what is left
            elif _kept_thing(core) is not None:
                # round 8: "yes, but leave the urgency where it is", "go on, but don't touch the date": the yes is
                # limited to that thing staying as it is (read as "the urgency stays the same")
                condition, assurance = (0, ""), _kept_thing(core)
            elif _trailing_only(core):
                condition = (0, "")  # round 8: "yes, but Tuesdays only", "customers only": limited to what precedes "only"
            else:
                assured = _assured(raw, core)
                if assured is not None:  # round 8: "go ahead, but make sure it's 17 Lake Road": what must hold
                    condition, assurance = (0, ""), assured
        after_yes = (reading.affirms and not reading.requests) or bool(reading.conditions)  # not a request's spec ("engagement 60 or more")
        if condition is None and after_yes and not raw.rstrip().endswith("?") and _bound_only(raw, core):
            condition = (0, "")  # "yes - no more than $40", "sure, $40 max", "ok, before Friday": a bound on its own
        if condition is not None:
            at, opener = condition
            said = _from_opener(raw, opener) if assurance is None else assurance
            assurance = None
            reading.conditions.append(replace(_condition(said, core[at:], opener), sentence=sentence_text))
            reading.condition_texts.append(said)
            core = core[:at]
            if not core:
                continue
        deferred = deferral(clause, core)
        if deferred is not None:
            reading.defers = True
            reading.negated_actions.append(core)
            reading.opens_refusal |= opening
            if deferred == "strong" or opening or _after_but(raw, sentence_text) or (acknowledged and not reading.requests):
                last = "refuse"
            continue
        refusals = [*lex.decline_forms, *lex.takebacks]
        declined = None if opens_with_any(clause, [*lex.not_declines, *_NO_YES()]) else (opens_with_any(clause, refusals) or opens_with_any(core, refusals))
        if declined:
            reading.declines = True
            reading.negated_actions.append(core)
            reading.opens_refusal |= opening
            if opening or _late_decline(clause, core, declined):
                last = "refuse"
            continue
        yes = opens_with_any(core, lex.yes_forms) or opens_with_any(clause, lex.yes_forms)
        opener = opens_with_any(core, lex.request_openers)
        if yes and opener and len(_form(opener)) > len(_form(yes)):
            yes = None  # "feel free to close it" is a request
        if yes and "would be" in yes and starts_with(core, yes) and core[len(_form(yes)) :][:1] == ["to"]:
            yes = None  # "it would be good to know the total first" asks back
        if yes and "would" in yes.split() and reading.question and not reading.affirms:
            yes = None  # "Is there nothing at 8? That would suit me better.": the "that" is the customer's own question
        if yes and not core and len(_form(yes)) < len(clause) - len(core) and _acknowledges(clause):
            yes = None  # "Good to know." acknowledges; it answers nothing
        if not core and not yes:
            continue  # only fillers ("oh", "sorry")
        if _negated(core):
            reading.declines = True
            reading.negated_actions.append(core)
            continue
        counter = (raw.rstrip().endswith("?") or sentence_text.rstrip().endswith("?")) and len(core) > 2 and core[0] in MODALS and core[1] == "not" and core[2] in ("you", "we")
        if (_is_question(raw, core) and not _is_request(clause)) or (core and asks_information(core)) or counter or asks_outcome(raw, core):
            # "can't you do two instead?": a negated modal question argues for something else; it asks back
            reading.question = True
            continue
        if yes:
            acknowledged = (not reading.affirms or acknowledged) and yes in lex.acknowledging_yes and len(core) <= len(_form(yes))
            reading.affirms = True
            reading.affirm_texts.append(sentence_text)
            last = "grant"
            rest = core[len(_form(yes)) :] if starts_with(core, yes) else []
            if rest and _is_request(rest):
                reading.requests.append(sentence)
                reading.request_texts.append(sentence_text)
            continue
        wanted = desires(core)
        if wanted is False:  # "I don't want it cancelled": a negated request for the action
            reading.negated_actions.append(core)
            continue
        if _is_request(clause) or opens_with_any(clause, lex.elliptical_openers) or wanted or sequenced(sentence_text):
            reading.requests.append(sentence)
            reading.request_texts.append(sentence_text)
            last = "grant"
            opener = opens_with_any(core, lex.request_openers)
            if opener and opens_with_any(core[len(_form(opener)) :], lex.yes_forms):
                reading.affirms = True  # "could you go ahead?" asks for what was proposed
                reading.affirm_texts.append(sentence_text)
            continue
        reading.statements.append(core)
        reading.statement_texts.append(raw)
    reading.closes_refusal = last == "refuse" and not reading.opens_refusal
    if reading.question and reading.affirms and not reading.requests and not reading.statements and not reading.conditions and all(
        " ".join(strip_fillers(words(t))) in _BARE_ACKS or " ".join(words(t)) in _BARE_ACKS for t in reading.affirm_texts):
        reading.affirms, reading.affirm_texts = False, []  # "Ok. What's the 45 made up of?" asks back
    return reading


def remarks_on_manner(core: list[str]) -> bool:
    """A clause that only says how the thing is to be done: a qualifying opener and a manner tail ("make it
    quick", "make that snappy please") — no condition, and no request for another action."""
    lex = lexicon()
    opener = opens_with_any(core, lex.qualifying_openers)
    return opener is not None and " ".join(core[len(_form(opener)) :]) in lex.manner_tails


def _qualifies(clause: list[str], core: list[str]) -> bool:
    """A clause after "but" that changes or limits the yes before it (`qualifying_openers`: "put 9:40", "cap it at
    25k", "not before 11", "with code workaround", "on my Mastercard, not the Visa"); not a deferral, a take-back or
    a manner ("make it quick"), nor a bare decline ("but no")."""
    lex = lexicon()
    opener = opens_with_any(core, lex.qualifying_openers)
    if opener is None or deferral(clause, core) is not None:
        return False
    if opens_with_any(clause, [*lex.takebacks, *lex.not_declines]) or opens_with_any(core, [*lex.takebacks, *lex.not_declines]):
        return False
    rest = core[len(_form(opener)) :]
    if not rest or remarks_on_manner(core) or " ".join(core) in lex.decline_forms:
        return False
    if opener.split()[-1] in ("keep", "keeping") and rest[0] in ("me", "us", "them", "him", "her", "going"):
        return False  # round 8: "yes, but keep me posted", "but keep us in the loop": a remark, not a limit
    return not (rest[0] in ("i", "we") or (opener in ("make", "make it") and rest[0] in ("sure", "certain")))


def _bound_only(raw: str, core: list[str]) -> bool:
    """A clause that is only a bound on a value ("no more than $40", "$40 max", "tops 25k", "before Friday",
    "10 am at the latest", "not after noon"): it opens with a bound or closes with a trailing one, and holds a
    value (an amount, a date, a time, a weekday, a part of the day) or, after an amount bound, a noun ("no more
    than the limit")."""
    lex = lexicon()
    if not core or len(core) > 8:
        return False
    opens = opens_with_any(core, lex.bound_openers)
    trailing = [*lex.trailing_upper_bounds, *lex.trailing_lower_bounds, *lex.trailing_date_before, *lex.trailing_date_after]
    closes = any(_ends_with(core, t) for t in trailing)
    if not (opens or closes):
        return False
    values = [v for v in spoken_values(raw) if v.kind in ("number", "date", "time")]
    days = set(lex.times_of_day) - {"am", "pm"}
    if values or any(w in days or w in _WEEKDAYS or w in ("noon", "midday", "midnight") for w in core):
        return True
    amount_bound = opens is not None and opens in lex.upper_bounds + lex.lower_bounds
    return amount_bound and len(core) > len(_form(opens)) and core[len(_form(opens))] in ("the", "my", "our", "your", "what")


_TAIL_FILLERS = frozenset({"please", "though", "thanks", "ok", "okay", "then", "mind", "really"})


def _ends_with(clause: list[str], phrase: str) -> bool:
    form = _form(phrase)
    body = list(clause)
    while body and body[-1] in _TAIL_FILLERS:
        body.pop()
    return bool(form) and len(body) > len(form) and tuple(body[-len(form) :]) == form


def _from_opener(raw: str, opener: str) -> str:
    """The written condition from its opener on ("I'll let you know if I have questions" -> "if I have
    questions"); the whole clause when the opener is not found as written, or when the clause is the condition
    (no opener)."""
    if not opener:
        return raw
    pattern = r"\b" + r"\W+".join(re.escape(w) for w in opener.split()) + r"\b"
    m = re.search(pattern, raw, re.I)
    return raw[m.start() :] if m else raw


def _acknowledges(clause: list[str]) -> bool:
    """The clause opens with a filler of several words that is no yes-form ("good to know", "i see")."""
    lex = lexicon()
    filler = opens_with_any(clause, lex.fillers)
    return filler is not None and len(_form(filler)) > 1 and not opens_with_any(clause, [f for f in lex.yes_forms if len(_form(f)) >= len(_form(filler))])


_REMAINDER_OPENERS = ["leave", "leaving", "keep", "keeping", "still leave", "make sure i keep", "make sure there is", "make sure there's"]
"""Openers of a clause after "but" that keep an amount back ("but leave at least $150 in the account"): with an amount,
read as a condition on what is left."""

_RESTRICTIONS = ["only", "just", "only for", "just for", "limit it to", "restrict it to", "keep it to", "limited to", "restricted to"]
"""Openers of a clause after "but" that limit a yes ("yes, but only the NA ones"): read as its condition."""


# ---- round 8 (r8-consent): a clause after "but" that keeps a thing as it is, or says what must hold ----------

_KEEP_OPENERS = ("leave", "keep", "just leave", "just keep", "please leave", "please keep", "do not touch", "do not change",
                 "do not move", "do not alter", "don't touch", "don't change", "no change to", "no changes to", "hold")
"""Openers of a clause after "but" that ask for a thing to stay as it is ("but leave the urgency where it is", "but keep
the date as it is", "but don't touch the priority"): with a predicate of staying (`unchanged_predicates`, "alone") or a
negated change verb, the clause is read as the yes's condition that the named thing is not set by the call."""

_ASSURANCES = ("make sure", "make certain", "be sure", "ensure", "just make sure", "please make sure", "double check",
               "double-check", "check that", "see that", "mind that", "making sure")
"""Openers of a clause after "but" saying what must hold ("go ahead, but make sure it's 17 Lake Road"): read as the yes's
condition when what follows names a value (an amount, id, date, time, day) or a code in words; not "but make sure you
email me the receipt" (no value: an added request, not a condition)."""


_STAYING = ("alone", "as it was", "the way it is", "how it is", "as they are", "where they are", "the way they are", "as is")


@lru_cache(maxsize=4096)
def _kept_thing_of(core: tuple[str, ...]) -> str | None:
    opener = opens_with_any(list(core), list(_KEEP_OPENERS))
    if opener is None:
        return None
    rest = list(core[len(_form(opener)) :])
    if not rest or rest[0] in ("me", "us", "you", "it", "that", "this", "them", "him", "her", "in", "on", "off", "out", "going"):
        return None  # "but keep me posted", "but leave it till Monday", "but keep going": no thing named to stay as it is
    predicates = sorted([*lexicon().unchanged_predicates, *_STAYING], key=lambda p: -len(_form(p)))
    at = min((a for p in predicates for a in find(rest, p)), default=None)
    if at is None and not opener.startswith(("do not", "don't", "no change")):
        return None
    thing = [w for w in rest[: at if at is not None else len(rest)] if w not in _TAIL_FILLERS and w not in ("for", "now", "just")]
    if not thing or len(thing) > 5:
        return None
    return " ".join(thing) + " stays the same"


def _kept_thing(core: list[str]) -> str | None:
    """The thing a keep clause after "but" names, as a condition that it stays the same ("leave the urgency where it
    is" -> "the urgency stays the same"), or None."""
    return _kept_thing_of(tuple(core))


def _trailing_only(core: list[str]) -> bool:
    """"Tuesdays only", "the healthcare ones only please", "customers only": a thing named, then "only"."""
    body = [w for w in core if w not in _TAIL_FILLERS]
    return 1 <= len(body) - 1 <= 4 and body[-1] == "only" and body[0] not in ("i", "we", "you", "it", "that", "this", "not")


def _assured(raw: str, core: list[str]) -> str | None:
    opener = opens_with_any(core, list(_ASSURANCES))
    if opener is None:
        return None
    m = rx(r"\b" + r"\W+".join(re.escape(w) for w in opener.split()) + r"\b", re.I).search(raw)
    rest = raw[m.end() :].strip() if m else ""
    rest = re.sub(r"^(?:that|to)\s+", "", rest, flags=re.I)
    if not rest or words(rest)[0] in ("you", "i", "we"):
        return None  # "but make sure you email me the receipt", "but make sure I get a copy": an added request
    if not ([v for v in spoken_values(rest) if v.kind in ("number", "id", "date", "time", "day")] or aliases_named(rest)):
        return None
    return rest


def _after_but(raw: str, sentence: str) -> bool:
    """The clause follows "but" ("Yes, but I'll let you know"): it qualifies what came before."""
    head = sentence[: sentence.find(raw)].rstrip(" ,").lower() if raw in sentence else ""
    return head.endswith(("but", "though", "however"))


# ---- values of a call --------------------------------------------------------------------------------

MONEY_KEYS = re.compile(r"amount|fee|total|difference|price|cost|charge|paid|refund|balance|credit|fare|due", re.I)
DATE_KEYS = re.compile(r"date|time|start|depart|arriv|day|when|at$|on$|window|slot", re.I)


def flatten(value: Any, key: str = "") -> list[tuple[str, Any]]:
    """(key path, leaf) pairs of a JSON-like value."""
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in flatten(v, f"{key}.{k}" if key else str(k))]
    if isinstance(value, list):
        return [pair for item in value for pair in flatten(item, key)]
    return [(key, value)]


def leaf_values(key: str, leaf: Any) -> list[Value]:
    """The values a call's argument or result leaf states (ids, dates, times, amounts)."""
    if isinstance(leaf, bool) or leaf is None:
        return []
    if isinstance(leaf, (int, float)):
        return [Value("number", Decimal(str(leaf)).normalize(), 0, 0, str(leaf))]
    if isinstance(leaf, str):
        return find_values(leaf)
    return []


def amounts(record: list[tuple[str, Any]], noun: tuple[str, ...]) -> list[Decimal]:
    """The money values of a call's record: those under a key naming the condition's noun ("if the
    difference is under $30": `fare_difference`) when there are any, else all of them (a bound on "it"
    must hold for every amount the call moves)."""
    money = [(k, v) for k, leaf in record if MONEY_KEYS.search(k.rsplit(".", 1)[-1]) for v in leaf_values(k, leaf) if v.kind == "number"]
    named = [v for k, v in money if any(n.rstrip("s") in k.lower() for n in noun if len(n) > 2)]
    return [v.value for v in (named or [v for _, v in money])]  # type: ignore[misc]


def dates(record: list[tuple[str, Any]]) -> list[tuple[int | None, int, int]]:
    return [v.value for k, leaf in record for v in leaf_values(k, leaf) if v.kind == "date"]  # type: ignore[misc]


def condition_holds(condition: Condition, record: list[tuple[str, Any]], status: str = "executed", stated: tuple[str, ...] | list[str] = ()) -> bool | None:
    """Whether the call meets the condition: True, False, or None when nothing can tell (no bound read from
    the condition, or no value of its kind in the call's arguments and result, nor in what the agent stated:
    `stated`, the agent's messages before the answer, latest last). Read, in order:
    - feasibility ("if he's free"): met when the call was carried out (`status`);
    - a bound on what is left ("as long as I keep at least 4,000"): on the remaining value the agent stated
      ("you would have 5,000 left"), or a balance it stated less the amounts the call moves;
    - a bound on an amount ("if it's under $250"): on the amounts the call moves, else on the amounts of the
      agent's latest sentence about a cost ("cancelling now costs one night: $149.00");
    - a bound on a date; a count ("if it's just the one bag": the call's argument named by the noun); a part
      of the day or a time ("as long as it's the morning slot", "only if it's after 2 pm"); a weekday; a code
      the customer names in words ("provided the refund goes to my card"); a text argument named by its key
      ("as long as it's not the enterprise plan"); an id, time or date named outright (equal or not).
    An "unless" condition is met when the condition is NOT."""
    held = _holds(condition, record, status, list(stated))
    if held is None or not condition.negative:
        return held
    return not held


def _holds(condition: Condition, record: list[tuple[str, Any]], status: str, stated: list[str]) -> bool | None:
    if condition.kind == "feasible":
        return status == "executed"
    if condition.kind == "remainder":
        left = _remaining(record, stated)
        return None if left is None else _within(left, condition)
    if condition.kind == "amount" and condition.bound is None:
        bound = _stated_for(condition.noun[0], stated)
        found = amounts(record, ())
        if bound is None or not found:
            return None
        return all(_within(v, replace(condition, bound=bound)) for v in found)
    if condition.kind == "amount":
        found = amounts(record, condition.noun) or _stated_costs(stated, "$" in condition.raw, condition.noun)
        if not found:
            return None
        return all(_within(v, condition) for v in found)
    if condition.kind == "date":
        found = dates(record)
        if not found:
            return None
        _, bm, bd = condition.bound
        key = (bm, bd)
        if condition.direction == "max":
            return all((m, d) <= key for _, m, d in found)
        return all((m, d) >= key for _, m, d in found)
    for check in (_count_holds, _time_holds, _weekday_holds, _alias_holds, _keyed_text_holds, _text_value_holds, _level_holds, _named_value_holds):
        held = check(condition, record)
        if held is not None:
            return held
    return None


def _level_holds(condition: Condition, record: list[tuple[str, Any]]) -> bool | None:
    """"provided it's tier 2 that gets it", "as long as it goes in at P2": a level the condition names, of the kind of
    a level the call sets (a support tier, a priority), compared with it; negated ("as long as it's not P1") the other
    way round."""
    held = [v for _, leaf in record if isinstance(leaf, str) for v in find_values(leaf) if v.kind == "level"]
    said = [v for v in spoken_values(condition.raw) if v.kind == "level"]
    cw = words(condition.raw)
    for s in said:
        mine = [v for v in held if v.value[0] == s.value[0]]
        if mine:
            same = any(v.same(s) or s.same(v) for v in mine)
            at = find(cw, s.text.lower())
            return same != (bool(at) and negated_at(cw, at[0], 4))
    return None


def _within(value: Decimal, condition: Condition) -> bool:
    bound = Decimal(str(condition.bound))
    return value <= bound if condition.direction == "max" else value >= bound


def _numbers(text: str) -> list[Decimal]:
    return [v.value for v in spoken_values(text) if v.kind == "number"]  # type: ignore[misc]


def _remaining(record: list[tuple[str, Any]], stated: list[str]) -> Decimal | None:
    """What the customer keeps after the call: a value the agent stated as left after it ("so you would
    have 5,000 left"), else a balance it stated ("you have $227.85 left") less the amounts the call moves."""
    lex = lexicon()
    for message in reversed(stated):
        parts = [(raw, w) for raw, w, _, _ in clauses(message)]
        after = [_numbers(raw) for raw, w in parts if any(find(w, r) for r in lex.remainder_words) and any(find(w, m) for m in lex.after_markers)]
        after = [n for n in after if n]
        if after:
            return after[-1][-1]
        held = [raw for raw, w in parts if any(find(w, r) for r in [*lex.remainder_words, "have", "has", "available"])]
        now = [n for n in (_numbers(raw) for raw in held) if n]
        moved = amounts(record, ())
        if now and moved:
            return now[-1][-1] - sum(moved)
        others = [n for raw, _ in parts if raw not in held for n in _numbers(raw)]
        if now and others and not moved:
            # "It's 11,000 miles each, so 33,000 for the three of you; you have 90,500 miles." for a call that
            # moves no amount: the balance less the largest cost stated beside it
            return now[-1][-1] - max(others)
    return None


def _stated_for(noun: str, stated: list[str]) -> Decimal | None:
    """The value the agent's latest sentence naming `noun` gives it ("your daily limit of $5,000.00" for "the
    limit", "your balance is $180.00" for "my balance"): the first number after the noun, else the last before."""
    stem = noun.rstrip("s")
    for message in reversed(stated):
        for sentence in reversed(_SENTENCE_SPLIT.split(message)):
            ws = words(sentence)
            at = [i for i, w in enumerate(ws) if w.startswith(stem)]
            if not at:
                continue
            lowered = sentence.lower()
            pos = lowered.find(stem)
            found = [v for v in find_values(sentence) if v.kind == "number"]
            after = [v for v in found if v.start > pos]
            before = [v for v in found if v.end <= pos]
            if after or before:
                return (after[0] if after else before[-1]).value  # type: ignore[return-value]
    return None


def _stated_costs(stated: list[str], money: bool, noun: tuple[str, ...] = ()) -> list[Decimal]:
    """The amounts of the agent's latest sentence about a cost ("cancelling now costs one night: $149.00";
    "the cheapest plan that covers you is growth at $299 per month" for "if the growth one is under $300":
    a sentence naming the condition's noun; with `money`, only amounts written as money)."""
    cost = [w for w in lexicon().cost_words if w != "it"]
    named = [n for n in noun if len(n) > 3]
    for message in reversed(stated):
        for sentence in reversed(_SENTENCE_SPLIT.split(message)):
            if not any(find(words(sentence), w) for w in [*cost, *named]):
                continue
            found = [v for v in find_values(sentence) if v.kind == "number" and (not money or "$" in sentence[max(0, v.start - 2) : v.start + 1])]
            if found:
                return [v.value for v in found]  # type: ignore[misc]
    return []


def _int_leaves(record: list[tuple[str, Any]]) -> list[tuple[str, int]]:
    return [(k.rsplit(".", 1)[-1].lower(), leaf) for k, leaf in record if isinstance(leaf, int) and not isinstance(leaf, bool)]


def _count_holds(condition: Condition, record: list[tuple[str, Any]]) -> bool | None:
    """"if it's just the one bag", "no more than 2 nights": a count followed by a noun naming an integer
    argument of the call (`bags`, `nights`, `passengers`)."""
    lex = lexicon()
    text = condition.raw.lower()
    leaves = _int_leaves(record)
    if not leaves:
        return None
    tokens = re.findall(r"[a-z0-9]+", text)
    skip = {"more", "extra", "additional", "checked", "other", "carry", "single"}
    for i, token in enumerate(tokens):
        count = int(token) if token.isdigit() else _COUNT_WORDS.get(token)
        if count is None:
            continue
        j = i + 1
        while j < len(tokens) and tokens[j] in skip:
            j += 1
        if j >= len(tokens) or len(tokens[j]) < 3:
            continue
        noun = tokens[j].rstrip("s")
        matching = [n for k, n in leaves if noun in k or k.rstrip("s") in noun]
        if not matching:
            continue
        direction = _direction(words(text), lex.upper_bounds, lex.lower_bounds)
        if direction == "max":
            return all(n <= count for n in matching)
        if direction == "min":
            return all(n >= count for n in matching)
        return all(n == count for n in matching)
    return None


_COUNT_WORDS = {"one": 1, "a": 1, "an": 1, "single": 1, "two": 2, "both": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12}


def _times(record: list[tuple[str, Any]]) -> list[int]:
    return [v.value for k, leaf in record for v in leaf_values(k, leaf) if v.kind == "time"]  # type: ignore[misc]


def _time_holds(condition: Condition, record: list[tuple[str, Any]]) -> bool | None:
    """A part of the day ("as long as it's the morning slot") or a time, bounded ("only if it's after
    2 pm", "before noon") or not ("as long as it's the 10 o'clock one"), on the times the call sets."""
    lex = lexicon()
    cw = words(condition.raw)
    times = _times(record)
    if not times:
        return None
    parts = [lex.times_of_day[w] for w in cw if w in lex.times_of_day and not (w in ("am", "pm") and any(v.kind == "time" for v in spoken_values(condition.raw)))]
    said = _one_reading([v for v in spoken_values(condition.raw) if v.kind == "time"])
    if said:
        direction = _direction(cw, lex.date_before, lex.date_after)
        if direction == "max":
            return all(t < min(s.value for s in said) for t in times)  # type: ignore[type-var]
        if direction == "min":
            return all(t >= max(s.value for s in said) for t in times)  # type: ignore[type-var]
        return all(any(t == s.value for s in said) for t in times)
    if parts:
        return all(any(lo <= t < hi for lo, hi in parts) for t in times)
    return None


def _one_reading(said: list[Value]) -> list[Value]:
    """A bare hour read both ways ("not before 11", "by 4") as its daytime reading (07:00-19:59): a bound
    compares with one time, not with whichever of its morning and evening readings suits."""
    out: list[Value] = []
    for v in said:
        twins = [w for w in said if w.start == v.start and w.end == v.end]
        if len(twins) > 1:
            day = [w for w in twins if 7 * 60 <= w.value < 20 * 60]  # type: ignore[operator]
            if day and v is not day[0]:
                continue
        out.append(v)
    return out


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _weekday_holds(condition: Condition, record: list[tuple[str, Any]]) -> bool | None:
    """"as long as it's on a Thursday": the weekday of every dated value of the call (a date with its year)."""
    import datetime

    named = {i for i, d in enumerate(_WEEKDAYS) if d in words(condition.raw) or d[:3] in words(condition.raw)}
    if not named:
        return None
    days = [datetime.date(y, m, d).weekday() for y, m, d in dates(record) if y]
    if not days:
        return None
    return all(d in named for d in days)


@lru_cache(maxsize=1)
def _alias_forms() -> tuple[tuple[str, str, str], ...]:
    """(spoken form, group, code) of every code alias, longest form first."""
    return tuple(sorted(((form, group, code) for group, codes in lexicon().value_aliases.items() for code, fs in codes.items() for form in [*fs, code.replace("_", " ")]),
                        key=lambda f: -len(_form(f[0]))))


@lru_cache(maxsize=8192)
def _aliases(text: str) -> tuple[tuple[str, str, bool], ...]:
    """(group, code, negated) for every code the text names in words ("my card" -> refund_destination /
    original_payment), longest spoken form first, each span read once. Kept per text: the gate asks it of
    the same answers for every case of a task."""
    w = list(words(text))
    taken: set[int] = set()
    out: list[tuple[str, str, bool]] = []
    for form, group, code in _alias_forms():
        for at in find(w, form):
            span = set(range(at, at + len(_form(form))))
            if _as_subject(w, at, at + len(_form(form))) or _other_instance(w, at):
                taken |= span  # "that gift card hasn't expired", "not some new card": no code chosen
                continue
            if span & taken:
                if any(g == group and c == code for g, c, _ in out):
                    continue
                if all(i in taken for i in span):
                    out.append((group, code, _code_negated(w, at)))  # the same words name a code of another group
                continue
            taken |= span
            out.append((group, code, _code_negated(w, at)))
    return tuple(out)


def _as_subject(w: list[str], at: int, end: int) -> bool:
    """The words at [at, end) name a thing the condition says something else about ("that gift card hasn't
    expired", "billing can promise ...", "PM-2290 is still valid"): a determiner or nothing before them after the
    condition's opener, and a predicate word (`predicate_words`) right after them."""
    lex = lexicon()
    after = w[end : end + 1]
    if not after or after[0] not in lex.predicate_words:
        return False
    if after[0] in ("is", "are", "was", "were", "gets", "got") and w[end + 1 : end + 2] and w[end + 1] not in ("still", "not", "valid", "active", "expired", "ok", "okay", "good", "able", "going"):
        return False  # "as long as the card is the one charged": the value is still the condition's subject matter
    i = at - 1
    while i >= 0 and at - i <= 4 and (w[i] in _DETERMINERS or (w[i].isalpha() and w[i] not in _OPENER_TAILS and w[i] not in _OBJECT_MARKERS)):
        i -= 1  # "that gift card": a determiner and the code's own modifiers
    return i < 0 or w[i] in _OPENER_TAILS


_OBJECT_MARKERS = frozenset("to on onto into back via by as through with is it be than of not no go goes going using use from in at for is".split())
_OPENER_TAILS = frozenset({"if", "as", "provided", "providing", "assuming", "unless", "that", "when", "long", "only", "but", "and", "so"})


def _code_negated(w: list[str], at: int) -> bool:
    """A code named negated ("not to my card") or set aside ("rather than email", "instead of SMS")."""
    return negated_at(w, at, 4) or w[max(0, at - 2) : at] in (["rather", "than"], ["instead", "of"]) or w[max(0, at - 1) : at] == ["than"]


def _other_instance(w: list[str], at: int) -> bool:
    """The code's words follow a word meaning another one of its kind ("not some new card", "another card")."""
    return any(w[max(0, at - len(_form(o))) : at] == list(_form(o)) for o in lexicon().other_instance)


def aliases_named(text: str) -> list[tuple[str, str, bool]]:
    """(group, code, negated) for every code `text` names in words (`value_aliases`: "my card" names the
    refund destination `original_payment`; "not to my card" names it negated)."""
    return list(_aliases(text))


def _codes(record: list[tuple[str, Any]]) -> set[str]:
    return {str(leaf).lower() for _, leaf in record if isinstance(leaf, str)}


def _alias_holds(condition: Condition, record: list[tuple[str, Any]]) -> bool | None:
    """"provided the refund goes to my card", "as long as it's not on my balance": a code named in words,
    checked on the call's argument holding a code of the same group."""
    codes = _codes(record)
    verdicts = []
    named = _aliases(condition.raw)
    for group, code, negated in named:
        if any(g == group and c == code and n != negated for g, c, n in named):
            continue  # "on the gift card and not some new card": the code is named both ways, the words tell
        group_codes = set(lexicon().value_aliases[group])
        present = codes & group_codes
        if not present:
            continue
        verdicts.append((code in present) != negated)
    return None if not verdicts else all(verdicts)


def _keyed_text_holds(condition: Condition, record: list[tuple[str, Any]]) -> bool | None:
    """"as long as it's not the enterprise plan", "only if it's the growth plan": a word naming a text
    argument's key ("plan") with the value before it, compared with the argument's value."""
    cw = words(condition.raw)
    texts = [(k.rsplit(".", 1)[-1].lower(), str(leaf).lower().replace("_", " ")) for k, leaf in record if isinstance(leaf, str) and not find_values(leaf)]
    plain = {x for f in [*lexicon().fillers, *lexicon().yes_forms] for x in words(f)}
    for i, w in enumerate(cw):
        keyed = [v for k, v in texts if w.rstrip("s") == k.rstrip("s") or (len(w) > 3 and w.rstrip("s") == k.split("_")[-1].rstrip("s"))]
        if not keyed:
            continue
        after = [x for x in cw[i + 1 : i + 4] if x not in _LINKS and x not in lexicon().negators]
        if after and after[0].isalpha() and after[0] not in _STOPWORDS and after[0] not in plain and (i == 0 or cw[i - 1] in _STOPWORDS):
            # "as long as the impact stays low", "provided the plan is growth": the value after its key
            value = after[0]
            if len(value) > 2 and value not in lexicon().negators:
                same = any(value in v.split() or v.startswith(value) for v in keyed)
                return same != any(x in lexicon().negators for x in cw[i + 1 : i + 4])
        if i == 0:
            continue
        named = cw[i - 1]
        if named in _STOPWORDS or named in lexicon().negators or named in plain or not named.isalpha():
            continue
        same = any(named in v.split() or v.startswith(named) for v in keyed)
        return same != negated_at(cw, i - 1, 4)
    return None


def _text_value_holds(condition: Condition, record: list[tuple[str, Any]]) -> bool | None:
    """"as long as it's growth", "provided it's not business": a short text argument of the call named in the
    condition (met; negated: broken)."""
    cw = words(condition.raw)
    for _, leaf in record:
        if not isinstance(leaf, str) or find_values(leaf) or not 2 <= len(leaf) <= 40:
            continue
        if len(leaf) == 2 and not rx(r"\b" + re.escape(leaf.upper()) + r"\b").search(condition.raw):
            continue  # a two-letter code counts written as one ("stays in the EU"), not as a word ("us", "no")
        form = leaf.lower().replace("_", " ")
        spaced = re.sub(r"(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])", " ", form)  # "tier2" said "tier 2"
        at = find(cw, form) or find(cw, form + "s") or (find(cw, spaced) if spaced != form else [])  # "only actual customers" names lifecycle customer
        if at and _as_subject(cw, at[0], at[0] + len(_form(form))):
            continue  # "only if billing can promise ...": a condition on billing, not on the team chosen
        if at:
            return not negated_at(cw, at[0], 4)
    return None


_LINKS = frozenset(("is stays stay remains remain be being set kept at to as of was gets get goes go will would should down "
                    "put logged recorded entered written noted listed filed "
                    "says say reads read shows show mentions mention contains contain includes include has have with called named "
                    "titled labelled labeled marked").split())
_STOPWORDS = frozenset("the a an my our your it is this that be to of for on in at and or its their new same".split())


def _named_value_holds(condition: Condition, record: list[tuple[str, Any]]) -> bool | None:
    """A condition naming an id, a time, a date or an amount outright, with no bound ("as long as it's on
    PM-8842", "provided it's the 12th"): met when the call has that value among those of its kind."""
    said = [v for v in spoken_values(condition.raw) if v.kind in ("id", "time", "date", "number")]
    if not said:
        return None
    values = [v for k, leaf in record for v in leaf_values(k, leaf)]
    cw = words(condition.raw)
    verdicts = []
    for s in said:
        kin = [v for v in values if v.kind == s.kind and (s.kind != "id" or str(v.value).split("-")[0] == str(s.value).split("-")[0])]
        if not kin:
            continue
        if any(_as_subject(cw, i, i + 1) for i, w in enumerate(cw) if w == s.text.lower()):
            continue  # "provided PM-2290 is still valid": a condition on the card's state
        hit = any(v.same(s) or s.same(v) for v in kin)
        neg = any(negated_at(cw, i, 4) for i, w in enumerate(cw) if w == s.text.lower())
        verdicts.append(hit != neg)
    return None if not verdicts else all(verdicts)


# ---- the values a customer says ------------------------------------------------------------------------------

_HOUR_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}
_SPOKEN_HOUR = re.compile(
    r"(?:(?P<half>half|quarter)\s+(?P<rel>past|to)\s+)?(?<![A-Za-z0-9:$.-])(?P<h>one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|1[0-2]|[1-9])"
    r"(?:[\s-](?P<min>fifteen|thirty|forty[\s-]five|o'?clock|oclock|sharp))?(?:\s*(?P<ap>am|pm|a\.m\.?|p\.m\.?)(?![A-Za-z]))?(?![A-Za-z0-9:-])(?!\s*(?:%|\$))",
    re.I,
)
_ONE_PRONOUN = frozenset("the this that which other another each every any no same first second last earlier later cheaper".split())
_HOUR_BEFORE = frozenset("at for around about by from the til till until before after between but and or then so yes yeah ok okay sure make".split())
_HOUR_AFTER = frozenset("o'clock oclock sharp one slot window appointment start then please thanks works is would will in on".split())


def spoken_values(text: str) -> list[Value]:
    """The values a customer says: `grader.text.values.find_values` (which reads amounts in words and with a
    scale word), plus a clock time said as a bare hour where the words around it make it a time ("put me
    down for ten", "the ten o'clock", "half past two"; an hour under 12 is read as both its morning and its
    afternoon time). Stricter than `grader.text.values.spoken_values(text, "time")`, which reads any bare
    hour as a time because its caller knows a time is being decided: a consent answer may also give counts
    ("yes, 2 bags"), so the hour needs a word before or after it that makes it one."""
    return list(_spoken(text))


@lru_cache(maxsize=8192)
def _spoken(text: str) -> tuple[Value, ...]:
    found = list(find_values(text))  # amounts with a scale word ("two hundred dollars", "4k") included
    extra: list[Value] = []
    taken = [(v.start, v.end) for v in found if v.kind == "time"]
    for m in _SPOKEN_HOUR.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        before = re.findall(r"[a-z']+", text[: m.start()].lower()[-20:])
        after = re.match(r"\s*([a-z']+)", text[m.end() :].lower())
        if m["h"].lower() == "one" and before and before[-1] in _ONE_PRONOUN and m["min"] is None and m["ap"] is None:
            continue  # round 8: "the one on the 10th", "that one please": a pronoun, not one o'clock
        alone = not before or before[-1] in _HOUR_BEFORE
        said_as_time = m["min"] is not None or m["half"] is not None or m["ap"] is not None or (alone and (after is None or after.group(1) in _HOUR_AFTER))
        if not said_as_time:
            continue
        hour = int(m["h"]) if m["h"].isdigit() else _HOUR_WORDS[m["h"].lower()]
        if m["ap"] is not None:
            half = 12 if m["ap"].lower().startswith("p") else 0
            minute = 0
            extra.append(Value("time", (hour % 12 + half) * 60, m.start(), m.end(), m.group(0)))
            continue
        minute = {"fifteen": 15, "thirty": 30}.get((m["min"] or "").lower(), 45 if (m["min"] or "").lower().startswith("forty") else 0)
        if m["half"]:
            minute = 30 if m["half"].lower() == "half" else 15
            if m["rel"].lower() == "to":
                hour, minute = hour - 1, 60 - minute
        for h in {hour % 12, hour % 12 + 12}:
            extra.append(Value("time", h * 60 + minute, m.start(), m.end(), m.group(0)))
    if not extra:
        return tuple(found)
    spans = [(v.start, v.end) for v in extra]
    kept = [v for v in found if not any(a <= v.start and v.end <= b for a, b in spans) or v.kind != "number"]
    return tuple(sorted(kept + extra, key=lambda v: v.start))


# the checks a yes's own words are read with too ("yes, but make it the enterprise plan", "yes, one bag")
keyed_text_holds = _keyed_text_holds
weekday_holds = _weekday_holds
count_holds = _count_holds
