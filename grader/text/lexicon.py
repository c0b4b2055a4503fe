"""The evidence judge's lexicon (`lexicon.yaml`, reviewed data): spelling variants and groups of forms that
state the same thing, and the keys by which a phrase's words are compared with a reply's words.

Two words state the same thing when they have the same Porter stem after spelling normalisation
("cancelled" / "canceled" / "cancellation", "listed" / "list") or share a group of the lexicon ("changed" /
"moved", "granted" / "holds"). A group of several words ("out of stock" / "sold out") is a whole-phrase
variant: `phrase_forms` gives every form of an evidence phrase the groups allow. Negation is never a form:
the matcher keeps a form's own polarity ("not listed" stays negative in "does not list").

Loaded on first use (no work at import time).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from pydantic import BaseModel, Field

from contracts.yaml_io import read_yaml
from grader.text.stemmer import stem

log = logging.getLogger(__name__)
LEXICON_FILE = Path(__file__).with_name("lexicon.yaml")
MAX_FORMS = 96
"""At most this many forms of one phrase (the groups of a long phrase could multiply). Forms are made
breadth first: every single substitution of every group before any combination of two."""
PARTICLES = frozenset("in on out up off down over back away under through".split())
"""Particles of phrasal verbs and compounds ("opted out" / "opted-out" / "optedout", "on hold" / "On-Hold",
"log in" / "login"): a word joined to a particle is the same words written apart."""
_NEGATIVE = frozenset("not never no nothing none neither nor cannot unable without nobody".split())
"""Negators of a form (and any word ending in n't): a negative member is never put into a negative phrase
("not removed" is never "not no longer has access")."""


class LexiconFile(BaseModel):
    """The file's schema (validated at load: a malformed lexicon is an error, never an empty one)."""

    model_config = {"extra": "forbid"}
    spellings: dict[str, str] = Field(default_factory=dict)
    groups: list[list[str]] = Field(default_factory=list)
    families: dict[str, list[str]] = Field(default_factory=dict)
    """Concept -> the ways agents say it: a group under a name (the name is a member), reviewed per concept."""
    more_families: dict[str, list[str]] = Field(default_factory=dict)
    """Round 2's additions, reviewed per concept: members added to the family of the same name (a new name is a
    new family); kept in their own block of the file."""
    round3_families: dict[str, list[str]] = Field(default_factory=dict)
    """Round 3's additions (branch r3-words), merged like `more_families`; kept in their own block."""
    round4_families: dict[str, list[str]] = Field(default_factory=dict)
    """Round 4's additions (branch r4-words), merged like `more_families`; kept in their own block."""
    round6_families: dict[str, list[str]] = Field(default_factory=dict)
    """Round 6's additions (branch r6-words), merged like `more_families`; kept in their own block."""
    round7_families: dict[str, list[str]] = Field(default_factory=dict)
    """Round 7's additions (branch r7-words), merged like `more_families`; kept in their own block."""
    round8_families: dict[str, list[str]] = Field(default_factory=dict)
    """Round 8's additions (branch r8-words), merged like `more_families`; kept in their own block."""
    round9_families: dict[str, list[str]] = Field(default_factory=dict)
    """Round 9's additions (branch r9-words), merged like `more_families`; kept in their own block."""
    wordnet_families: dict[str, list[str]] = Field(default_factory=dict)
    """Synonyms from WordNet 3.1's most frequent senses of the catalog's evidence words
    (scripts/lexicon_candidates_from_wordnet.py), kept only where reviewed to state the same thing in every
    customer-service reply; merged like `more_families`; kept in their own block (round 10, r10-lexicon)."""
    past_participles: dict[str, str] = Field(default_factory=dict)
    """An irregular verb's simple past -> its past participle ("came" -> "come", "took" -> "taken"): both state
    the thing done, so "came back clean" and "has come back clean" meet (never the base form: "please pay"
    states no "paid")."""
    not_yet_before: list[str] = Field(default_factory=list)
    """Words after which a noun or verb of a done word's stem is a thing still to come ("awaiting approval",
    "eligible for a refund"), not the done thing ("approved", "refunded")."""


@dataclass(frozen=True)
class Lexicon:
    spellings: dict[str, str]
    word_groups: dict[str, frozenset[int]]
    """A one-word form's stem (spelling-normalised; "=form": the exact form) -> the groups it belongs to."""
    phrase_groups: tuple[tuple[str, ...], ...]
    """Groups with a form of several words (spelling-normalised), for whole-phrase variants."""
    not_yet_before: frozenset[str] = frozenset()
    participles: dict[str, str] | None = None
    """Simple past -> past participle of irregular verbs (`past_participles` in the file)."""


def _hyphen_variants(form: str) -> list[str]:
    """A member written with a hyphen stands for its words apart and closed up ("go-ahead": "go ahead",
    "goahead"; replies' hyphenated words are read closed up)."""
    if not re.search(r"[a-z]-[a-z]", form.lower()):
        return [form]
    return [form.replace("-", " "), re.sub(r"(?<=[a-zA-Z])-(?=[a-zA-Z])", "", form)]


def _words(text: str) -> list[str]:
    """The words of a text or a member; a member's "+has" (a function word kept as a word to match: "+has the
    role") keeps its mark."""
    return re.findall(r"\+?[a-z0-9#]+(?:['.][a-z0-9]+)*", text.lower().replace("\u2019", "'"))


@cache
def lexicon(path: Path = LEXICON_FILE) -> Lexicon:
    data = LexiconFile.model_validate(read_yaml(path.read_text(encoding="utf-8")) or {})
    spellings = {k.lower(): v.lower() for k, v in data.spellings.items()}
    word_groups: dict[str, set[int]] = {}
    phrase_groups: list[tuple[str, ...]] = []
    merged = {name: list(forms) for name, forms in data.families.items()}
    added = [name for name in LexiconFile.model_fields if name.endswith("_families")]  # more_families, then each round's block, in file order
    for name, forms in [entry for block in added for entry in getattr(data, block).items()]:
        merged.setdefault(name, []).extend(f for f in forms if f not in merged.get(name, []))
    families = [[name, *(f for f in forms if f.lower() != name.lower())] for name, forms in merged.items()]
    for gid, raw in enumerate([*data.groups, *families]):
        group = [v for form in raw for v in _hyphen_variants(form)]
        exact = [form.startswith("=") for form in group]
        forms = tuple(" ".join(spelling(w, spellings) for w in _words(form.lstrip("="))) for form in group)
        for form, only in zip(forms, exact, strict=True):
            if " " not in form:
                word_groups.setdefault("=" + form if only else stem(form), set()).add(gid)
        if any(" " in form for form in forms):  # an exact form goes into a phrase marked "#": that form only
            phrase_groups.append(tuple(dict.fromkeys(form + "#" if only else form for form, only in zip(forms, exact, strict=True))))
    log.debug("lexicon: %d spellings, %d groups, %d families", len(spellings), len(data.groups), len(families))
    participles = {k.lower(): v.lower() for k, v in data.past_participles.items()}
    return Lexicon(
        spellings, {k: frozenset(v) for k, v in word_groups.items()}, tuple(phrase_groups), frozenset(w.lower() for w in data.not_yet_before), participles
    )


_BRITISH = (
    (re.compile(r"^(.{3,})is(e|ed|es|ing|ation|ations|er|ers)$"), r"\1iz\2"),
    (re.compile(r"^(.{2,})ys(e|ed|es|ing|is)$"), r"\1yz\2"),
    (re.compile(r"^(.{2,}[^aeiou])our(s|ed|ing|ite|ites|able)?$"), r"\1or\2"),
    (re.compile(r"^(.{2,})(t|b)re(s|d)?$"), r"\1\2er\3"),
    (re.compile(r"^(.{3,})ogue(s)?$"), r"\1og\2"),
    (re.compile(r"^(.*[aeiou][^aeiou]*[aeiou])ll(ed|ing|er|ers|or|ors)$"), r"\1l\2"),
    (re.compile(r"^(.{2,}dg)ement(s)?$"), r"\1ment\2"),
)
"""General British -> American spelling rules (-ise/-ize, -yse/-yze, -our/-or, -tre/-ter, -ogue/-og, a
doubled l after an unstressed vowel: "dialled"/"dialed", "counsellor"/"counselor", "judgement"/"judgment").
Both sides of a comparison are normalised alike, so a word the rule changes that has no other spelling
("promise" -> "promize", "installed" -> "instaled") still equals itself; the -ll- rule needs two vowels
before it, so "filled" never becomes "filed"."""


def spelling(word: str, spellings: dict[str, str] | None = None) -> str:
    """One spelling for a word's variants: the lexicon's own list first, then the general rules."""
    word = word.lower()
    table = spellings if spellings is not None else lexicon().spellings
    if word in table:
        return table[word]
    for pattern, repl in _BRITISH:
        if pattern.match(word):
            return pattern.sub(repl, word)
    return word


def _compound(word: str) -> str | None:
    """A word written closed or hyphenated from a word and a particle ("optedout", "inprogress", "onhold",
    "login"): the key of its two parts by stem, so "opted-out" and "opt-out" meet."""
    for particle in PARTICLES:
        if word.endswith(particle) and len(word) - len(particle) >= 2:
            return f"c:{stem(spelling(word[: -len(particle)]))}+{particle}"
        if word.startswith(particle) and len(word) - len(particle) >= 3:
            return f"c:{particle}+{stem(spelling(word[len(particle) :]))}"
    return None


@lru_cache(maxsize=65536)
def word_keys(word: str) -> frozenset[str]:
    """What a word is compared by: its stem and its lexicon groups, by stem (a group's "refunded" takes in
    "refunds") or, for a form written "=holds", that exact form only, and for a word joined to a particle
    its parts (two words state the same thing when their keys meet)."""
    if word.endswith("#"):  # an exact form of the lexicon put into a phrase: that form only
        return frozenset({"x:" + spelling(word[:-1])})
    form = spelling(word)
    groups = lexicon().word_groups
    keys = {"s:" + stem(form), "x:" + form}
    participle = (lexicon().participles or {}).get(form)
    if participle is not None:  # "came" states what "come" (has come) does; the participle keeps its own keys
        keys.add("s:" + stem(participle))
    keys |= {f"g:{g}" for g in groups.get(stem(form), ())} | {f"g:{g}" for g in groups.get("=" + form, ())}
    if (joined := _compound(form)) is not None:
        keys.add(joined)
    return frozenset(keys)


def not_yet_before() -> frozenset[str]:
    """Words after which a word of a done word's stem states a thing still to come (`lexicon.yaml`)."""
    return lexicon().not_yet_before


def _negative(words: list[str]) -> bool:
    return any(w in _NEGATIVE or w.endswith("n't") for w in words)


_NOT_JOINED = frozenset("of the a an to your our my his her their its it with for and or is are was were be been you we at by as from".split())
"""Words never closed up with a particle ("out of" is never "outof")."""


def _compound_forms(form: str) -> list[str]:
    """A form's other writings of its compounds: a particle joined to the word before or after it ("in
    progress" -> "inprogress", "opted out" -> "optedout"), any two-word form closed up ("time zone" ->
    "timezone"), and a closed word split at its particle ("optout" -> "opt out")."""
    words = form.split()
    out = []
    for i in range(len(words) - 1):
        a, b = words[i], words[i + 1]
        if (a in PARTICLES or b in PARTICLES or len(words) == 2) and a.isalpha() and b.isalpha() and not _negative([a, b]) and not {a, b} & _NOT_JOINED:
            out.append(" ".join([*words[:i], a + b, *words[i + 2 :]]))
    for i, w in enumerate(words):
        for particle in PARTICLES:
            if w != particle and w.endswith(particle) and len(w) - len(particle) >= 2 and w.isalpha():
                out.append(" ".join([*words[:i], w[: -len(particle)], particle, *words[i + 1 :]]))
    return out


ALREADY_AFTER = ("earlier", "previously", "before", "beforehand")
"""Words that state "already" after the verb ("credited earlier" for "already credited")."""


def _already_forms(form: str) -> list[str]:
    """A form that says "already X" in the other common order: "X earlier", "X previously", "previously X"
    ("was credited earlier", "previously awarded" for "already credited" / "already awarded")."""
    words = form.split()
    if "already" not in words or len(words) < 2 or words[-1] == "already":
        return []
    rest = [w for w in words if w != "already"]
    return [" ".join([*rest, after]) for after in ALREADY_AFTER] + [" ".join(w if w != "already" else "previously" for w in words)]


@cache
def _group_index() -> tuple[tuple[tuple[str, ...], tuple[str, ...], frozenset[str]], ...]:
    """Each phrase group with its members longest first and their first words (to skip a group fast)."""
    return tuple((g, tuple(sorted(g, key=len, reverse=True)), frozenset(m.split()[0] for m in g if m)) for g in lexicon().phrase_groups)


@cache
def _groups_by_first_word() -> dict[str, tuple[int, ...]]:
    """Word -> the positions in `_group_index` of the groups with a member opening with it: a form is
    compared only with the groups one of its words can open a member of, in the groups' own order."""
    out: dict[str, list[int]] = {}
    for i, (_, _, first_words) in enumerate(_group_index()):
        for w in first_words:
            out.setdefault(w, []).append(i)
    return {w: tuple(ids) for w, ids in out.items()}


@lru_cache(maxsize=None)
def _member_openers(group: int) -> tuple[dict[str, tuple[int, ...]], tuple[bool, ...]]:
    """For the group at `group` in `_group_index`: first word -> positions of its members (longest first)
    opening with it, and whether each member is of particles only."""
    _, longest_first, _ = _group_index()[group]
    openers: dict[str, list[int]] = {}
    for k, member in enumerate(longest_first):
        if member:
            openers.setdefault(member.split()[0], []).append(k)
    return {w: tuple(ks) for w, ks in openers.items()}, tuple(all(w in PARTICLES for w in m.split()) for m in longest_first)


def _substitutions(form: str, kept: tuple[int, int] = (0, 0)) -> list[tuple[str, tuple[int, int]]]:
    """Every form made by putting another member of one group in place of the member the form holds (the
    longest one a group has in it), with the span of what was put in. A one-word member is not replaced by
    a one-word member (their keys already meet), a member of particles only ("off") only when it is the
    whole form, a negative member never goes into a form that is negative already (no double negation),
    and a member overlapping the `kept` span (what an earlier substitution put in) is left alone."""
    out: list[tuple[str, tuple[int, int]]] = []
    padded = f" {form} "
    present = set(form.split())
    index, by_word = _group_index(), _groups_by_first_word()
    for i in sorted({i for w in present for i in by_word.get(w, ())}):
        group, longest_first, _ = index[i]
        openers, particles_only = _member_openers(i)
        found = None
        # only members opening with a word of the form can be in it; met in the longest-first order
        for k in sorted({k for w in present for k in openers.get(w, ())}):
            member = longest_first[k]
            if particles_only[k] and member != form:
                continue
            at = padded.find(f" {member} ")  # whole words: forms are words joined by single spaces
            while at != -1 and not (at + len(member) <= kept[0] or at >= kept[1]):
                at = padded.find(f" {member} ", at + 1)
            if at != -1:
                found = (member, at)
                break
        if found is None:
            continue
        member, start = found
        end = start + len(member)
        rest = (form[:start] + " " + form[end:]).split()
        for other in group:
            if other == member or (" " not in other and " " not in member):
                continue
            if _negative(other.split()) and _negative(rest):
                continue
            new = (form[:start] + other + form[end:]).strip()
            out.append((new, (start, start + len(other))))
    return out


@lru_cache(maxsize=8192)
def phrase_forms(phrase: str) -> tuple[str, ...]:
    """The phrase and its variants by the lexicon's groups of several words ("out of stock" -> "sold
    out", "no stock", ...) and by the writings of its compounds ("on hold" -> "onhold"), spelling-normalised,
    the phrase itself first; breadth first (a second group only outside what the first one put in), at most
    MAX_FORMS."""
    base = " ".join(spelling(w) for w in _words(phrase))
    forms = [base, *_compound_forms(base), *_already_forms(base)]
    level: list[tuple[str, tuple[int, int]]] = []
    for seed in list(forms):
        level.extend(_substitutions(seed))
    forms.extend(f for f, _ in level)
    for form, span in level:
        if len(forms) >= 4 * MAX_FORMS:
            break
        forms.extend(f for f, _ in _substitutions(form, span))
    return tuple(dict.fromkeys(forms))[:MAX_FORMS]
