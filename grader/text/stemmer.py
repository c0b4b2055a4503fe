"""The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), as published: "cancelled",
"canceled" and "cancellation" share the stem "cancel", "listed" / "lists" / "listing" share "list".

The evidence judge matches a phrase's content words by their stems (`grader.text.matching`), so a reply
may inflect them. Written out here because the project carries no stemming dependency; PyStemmer or
snowballstemmer (the Snowball "English" stemmer, Porter's own successor) would do the same job better.
"""

from __future__ import annotations

from functools import lru_cache

_VOWELS = frozenset("aeiou")


def _consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True



def _m(stem: str) -> int:
    forms = ""
    for i in range(len(stem)):
        f = "c" if _consonant(stem, i) else "v"
        if not forms or forms[-1] != f:
            forms += f
    return forms.count("vc")


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    if len(word) < 3:
        return False
    return _consonant(word, len(word) - 3) and not _consonant(word, len(word) - 2) and _consonant(word, len(word) - 1) and word[-1] not in "wxy"


def _replace(word: str, rules: tuple[tuple[str, str], ...], min_m: int) -> str:
    for suffix, repl in rules:
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)]
            return stem + repl if _m(stem) > min_m else word
    return word


_STEP2 = (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"), ("bli", "ble"),
    ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"),
    ("ator", "ate"), ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"),
    ("iviti", "ive"), ("biliti", "ble"), ("logi", "log"),
)
_STEP3 = (("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""), ("ness", ""))
_STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate",
    "iti", "ous", "ive", "ize",
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of a lower-case word (words of one or two letters are their own stem)."""
    if len(word) <= 2:
        return word
    # step 1a
    if word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("ss"):
        pass
    elif word.endswith("s"):
        word = word[:-1]
    # step 1b
    extra = False
    if word.endswith("eed"):
        if _m(word[:-3]) > 0:
            word = word[:-1]
    elif word.endswith("ed") and _has_vowel(word[:-2]):
        word, extra = word[:-2], True
    elif word.endswith("ing") and _has_vowel(word[:-3]):
        word, extra = word[:-3], True
    if extra:
        if word.endswith(("at", "bl", "iz")):
            word += "e"
        elif _double_consonant(word) and word[-1] not in "lsz":
            word = word[:-1]
        elif _m(word) == 1 and _cvc(word):
            word += "e"
    # step 1c
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    word = _replace(word, _STEP2, 0)
    word = _replace(word, _STEP3, 0)
    # step 4
    for suffix in sorted(_STEP4, key=len, reverse=True):
        if word.endswith(suffix):
            stem_ = word[: -len(suffix)]
            if _m(stem_) > 1 and (suffix != "ion" or stem_.endswith(("s", "t"))):
                word = stem_
            break
    # step 5
    if word.endswith("e"):
        stem_ = word[:-1]
        if _m(stem_) > 1 or (_m(stem_) == 1 and not _cvc(stem_)):
            word = stem_
    if _m(word) > 1 and _double_consonant(word) and word.endswith("l"):
        word = word[:-1]
    return word
