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

import yaml
from pydantic import BaseModel, Field

from grader.text.stemmer import stem

log = logging.getLogger(__name__)
LEXICON_FILE = Path(__file__).with_name("lexicon.yaml")
MAX_FORMS = 24
"""At most this many forms of one phrase (the groups of a long phrase could multiply)."""


class LexiconFile(BaseModel):
    """The file's schema (validated at load: a malformed lexicon is an error, never an empty one)."""

    spellings: dict[str, str] = Field(default_factory=dict)
    groups: list[list[str]] = Field(default_factory=list)


@dataclass(frozen=True)
class Lexicon:
    spellings: dict[str, str]
    word_groups: dict[str, frozenset[int]]
    """A one-word form's stem (spelling-normalised; "=form": the exact form) -> the groups it belongs to."""
    phrase_groups: tuple[tuple[str, ...], ...]
    """Groups with a form of several words (spelling-normalised), for whole-phrase variants."""


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9#]+(?:['.][a-z0-9]+)*", text.lower().replace("\u2019", "'"))


@cache
def lexicon(path: Path = LEXICON_FILE) -> Lexicon:
    data = LexiconFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    spellings = {k.lower(): v.lower() for k, v in data.spellings.items()}
    word_groups: dict[str, set[int]] = {}
    phrase_groups: list[tuple[str, ...]] = []
    for gid, group in enumerate(data.groups):
        exact = [form.startswith("=") for form in group]
        forms = tuple(" ".join(spelling(w, spellings) for w in _words(form.lstrip("="))) for form in group)
        for form, only in zip(forms, exact, strict=True):
            if " " not in form:
                word_groups.setdefault("=" + form if only else stem(form), set()).add(gid)
        if any(" " in form for form in forms):  # an exact-only form is matched in replies, never put in a phrase
            phrase_groups.append(tuple(form for form, only in zip(forms, exact, strict=True) if not only))
    log.debug("lexicon: %d spellings, %d groups", len(spellings), len(data.groups))
    return Lexicon(spellings, {k: frozenset(v) for k, v in word_groups.items()}, tuple(phrase_groups))


_BRITISH = (
    (re.compile(r"^(.{3,})is(e|ed|es|ing|ation|ations|er|ers)$"), r"\1iz\2"),
    (re.compile(r"^(.{2,})ys(e|ed|es|ing|is)$"), r"\1yz\2"),
    (re.compile(r"^(.{2,}[^aeiou])our(s|ed|ing|ite|ites|able)?$"), r"\1or\2"),
    (re.compile(r"^(.{2,})(t|b)re(s|d)?$"), r"\1\2er\3"),
    (re.compile(r"^(.{3,})ogue(s)?$"), r"\1og\2"),
)
"""General British -> American spelling rules (-ise/-ize, -yse/-yze, -our/-or, -tre/-ter, -ogue/-og). Both
sides of a comparison are normalised alike, so a word the rule changes that has no other spelling
("promise" -> "promize") still equals itself."""


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


@lru_cache(maxsize=65536)
def word_keys(word: str) -> frozenset[str]:
    """What a word is compared by: its stem and its lexicon groups, by stem (a group's "refunded" takes in
    "refunds") or, for a form written "=holds", that exact form only (two words state the same thing when
    their keys meet)."""
    form = spelling(word)
    groups = lexicon().word_groups
    keys = {"s:" + stem(form)}
    keys |= {f"g:{g}" for g in groups.get(stem(form), ())} | {f"g:{g}" for g in groups.get("=" + form, ())}
    return frozenset(keys)


@lru_cache(maxsize=8192)
def phrase_forms(phrase: str) -> tuple[str, ...]:
    """The phrase and its variants by the lexicon's groups of several words ("out of stock" -> "sold
    out", "no stock", ...), spelling-normalised, the phrase itself first."""
    base = " ".join(spelling(w) for w in _words(phrase))
    forms = [base]
    for group in lexicon().phrase_groups:
        for member in group:
            pattern = re.compile(r"(?<![a-z0-9'])" + re.escape(member) + r"(?![a-z0-9'])")
            for form in list(forms):
                if pattern.search(form):
                    forms.extend(pattern.sub(other, form) for other in group if other != member)
            if len(forms) >= MAX_FORMS:
                break
    return tuple(dict.fromkeys(forms))[:MAX_FORMS]
