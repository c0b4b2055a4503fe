"""Values in free text: money and numbers, dates, clock times, phones, levels and ids, recognised in their
common written forms (digits and words) and reduced to one canonical value each, so the evidence judge
compares facts, not spellings.

Kinds and canonical forms:
- ``number`` (money, counts, percentages): a `Decimal` — ``$1,450`` = ``1450.00`` = ``1,450 dollars`` =
  ``one thousand four hundred and fifty dollars`` = ``$1.45k``. A percentage keeps its own kind
  (``percent``: ``4%`` = ``4 percent`` = ``four per cent``) so ``4%`` never matches a count of 4. A number
  written as money (a currency sign or code, ``dollars``/``bucks``, cents, ``-dollar``) has ``money`` set
  (`is_money`): money compares with money, a count with a count.
- ``date``: ``(year | None, month, day)`` — ``2026-12-15`` = ``December 15, 2026`` = ``15 Dec 2026`` =
  ``Dec 15th`` = ``12/15/2026`` = ``12/15`` (month first, always: ``7/12`` is July 12). A date inside an
  ISO datetime (``2026-11-29T10:15``) is a date (and its time a time). A written date without a year
  (``Dec 15``) leaves the year open: it equals a dated value with the same month and day (the worlds live in
  one known year, and a reply naming the day without the year states the same fact); a reply naming another
  YEAR states another date.
- ``day``: ``(day of month, weekday | None)`` — a day named without its month where a date is plainly meant:
  after a weekday (``Monday the 7th``, ``Wed 2nd``, ``Wednesday the second``), after a preposition of time
  (``on the 7th``, ``by the 15th``) or before ``of the month``. It equals any date with that day of the month
  (and, when both name a weekday and a year, the same weekday); never another month's ``7th`` written with
  its month (that is a ``date``).
- ``time``: minutes after midnight — ``1 pm`` = ``13:00`` = ``1:00 PM`` = ``one p.m.`` = ``1 in the
  afternoon``; ``noon`` (``12 noon``, ``midday``), ``midnight``; ``ten past four``, ``half past 3``, ``a
  quarter to five``, ``16h10``, ``1600 hours``, ``10.30am``. A bare ``10:00`` is 24-hour. A range's first
  hour takes the range's am/pm ("8 to 10 am", "8-10am", "between 8 and 10 am", "8 to 10 in the morning" are
  08:00 and 10:00; "11 to 1 pm" is 11:00 and 13:00: a range runs forward); a range with noon at one end
  runs forward from or up to it ("noon to 2" is 12:00-14:00, "10 to noon" 10:00-12:00). An hour with no
  am/pm but written as a time (``four o'clock``, ``ten past four``) reads both halves of the day (its
  ``alts``): 16:00 primarily for 1-7, the morning for 8-11.
- a bare hour where a time is plainly meant (``at ten.``, ``for 4 on Monday``, ``from 8 to 10 tomorrow``)
  stays a number but also reads as that hour in either half of the day (``alts``): it equals the time
  (``at ten`` states 10:00) while a count or an amount still reads it as a number.
- ``cents``: ``10 cents`` / ``ten cents`` / ``10¢`` are the amount ``0.10``, money as ``$0.10`` is;
  ``forty-two dollars and thirty cents`` is ``42.30``.
- ``phone``: a North-American phone number in any layout, as its ten digits — ``(360) 555-0145`` =
  ``360.555.0145`` = ``360 555 0145`` = ``+1 360-555-0145``.
- ``level``: ``(scale, n)`` — ``P1`` = ``P-1`` = ``priority 1`` = ``priority one``; ``Sev2`` =
  ``severity two``; ``tier 2`` = ``tier two`` = ``Tier II``; ``level 3`` = ``level three``. A code, never a
  count.
- ``id``: letters-dash-digits ids (``CASE-5016``, ``DSP-3001``) and long letter+digit codes
  (``1Z999AA10123456784``), upper-cased: ids match case-insensitively and their digits are never numbers.

- number words are ``number`` values: cardinals of any size (``three``, ``twenty-five``, ``one hundred and
  ten``, ``a hundred``, ``nine thousand one hundred``, ``fifteen hundred``, ``four point five``), digits with a
  scale (``30k``, ``75.5k``, ``$1.5k``, ``2 thousand``, ``1.2 million``), and ``a single`` (a count of one
  before its noun, not a room or bed type). ``one`` alone counts only where it counts something (``one
  charge``, ``only one``), not as a pronoun (``the one you booked``, ``one of them``); a word joined to a
  non-number by a hyphen (``one-way``, ``two-factor``) is no count, unless the word is a unit (``a
  hundred-dollar limit``, ``thirty-day window``). Approximate words (``a dozen``, ``a couple``, ``hundreds``)
  are not values: an approximate word states no exact count.

Recognition is regex-based and deliberately conservative: it never guesses a value that is not written
as one. `spoken_values` reads a customer's short answer when the kind of value being decided is known
("put me down for ten" while a time is being chosen).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from grader.text.rx import rx

MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
            ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
            ("november", "nov"), ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
WEEKDAYS = {
    name: i
    for i, names in enumerate(
        [
            ("monday", "mon"), ("tuesday", "tue", "tues"), ("wednesday", "wed", "weds"), ("thursday", "thu", "thur", "thurs"),
            ("friday", "fri"), ("saturday", "sat"), ("sunday", "sun"),
        ]
    )
    for name in names
}
"""Weekday names and their abbreviations (Monday = 0, as `datetime.date.weekday`)."""
_MONTH = r"(?P<{g}>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{g}>[0-3]?\d)(?:st|nd|rd|th)?"
_WEEKDAY = r"(?P<wd>" + "|".join(sorted(WEEKDAYS, key=len, reverse=True)) + r")"

ID_RE = re.compile(r"(?<![A-Za-z0-9])(?:[A-Za-z]{2,}[A-Za-z0-9]*-(?:[A-Za-z0-9]+-)*[A-Za-z0-9]*\d[A-Za-z0-9]*|(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{10,})(?![A-Za-z0-9])")
ISO_DT_RE = re.compile(r"(?<![\d-])(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?:[T ](?P<hh>\d{2}):(?P<mm>\d{2})(?::\d{2})?)?(?!\d)")
US_DATE_RE = re.compile(r"(?<![\d/])(?P<m>1[0-2]|0?[1-9])/(?P<d>[0-3]?\d)/(?P<y>\d{4})(?![\d/])")
DAY_FIRST_DATE_RE = re.compile(r"(?<![\d/.])(?P<d>1[3-9]|2\d|3[01])[/.](?P<m>1[0-2]|0?[1-9])[/.](?P<y>\d{4}|\d{2})(?![\d/])")
"""A day-first date that can be read no other way (its first number is no month: ``20/11/2026``,
``25.12.26``); an ambiguous one (``07/12/2026``) stays month first."""
DOTTED_DATE_RE = re.compile(r"(?<![\w/.,$])(?P<d>[0-2]?\d|3[01])\.(?P<m>1[0-2]|0?[1-9])\.(?P<y>\d{4}|\d{2})(?![\w/]|[.,]\d)")
"""<!-- r10-words --> A date written with dots is day first whatever its day (``10.12.2026``, ``03.12.26``: the
continental layout; a US writer uses slashes, which stay month first)."""
US_SHORT_DATE_RE = re.compile(r"(?<![\d/.,$\w])(?P<m>1[0-2]|0?[1-9])/(?P<d>[0-3]?\d)(?:/(?P<y>\d{2}))?(?![\d/]|\.\d|\s+of\b)")
"""A month-first date without its four-digit year (``12/2``, ``12/07``, ``12/07/26``): month first, always."""
MDY_RE = re.compile(
    r"(?<![a-z])" + _MONTH.format(g="mon") + r"\s+(?:the\s+)?" + _DAY.format(g="day") + r"(?![\d:]|[.,]\d|\s?(?:%|percent\b|per\s?cent\b|pct\b))(?:,?\s+(?P<year>\d{4})(?!\d))?", re.I
)
"""A month then a day; r10-words: not a month labelling a figure ("October 6.0%", "November 4%": a month's rate)."""
DMY_RE = re.compile(
    r"(?<![\d.,])" + _DAY.format(g="day") + r"(?:\s+of)?\s+" + _MONTH.format(g="mon") + r"(?![a-z])(?:,?\s+(?P<year>\d{4})(?!\d))?", re.I
)
TIME_RE = re.compile(
    r"(?<![\d.:$])(?P<h>[01]?\d|2[0-3])(?:[:.](?P<m>[0-5]\d))?\s*(?P<ap>[ap])\.?\s?m\b\.?|(?<![\d.:$])(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)(?!\d|:\d)",
    re.I,
)
NAMED_TIME_RE = re.compile(r"(?:\b12\s+)?\b(?P<w>noon|midday|midnight)\b", re.I)
TIME_RANGE_RE = re.compile(
    r"(?<![\d.:$])(?P<first>(?P<h1>[01]?\d|2[0-3])(?::(?P<m1>[0-5]\d))?(?:\s*(?P<ap1>[ap])\.?\s?m\b\.?)?)"
    r"\s*(?:-|\u2013|to|till|until|and)\s*"
    r"(?P<h2>[01]?\d|2[0-3])(?::(?P<m2>[0-5]\d))?\s*(?P<ap2>[ap])\.?\s?m\b\.?",
    re.I,
)
"""An hour range whose am/pm is written once, at its end ("8 to 10 am", "8-10am", "between 8 and 10 am").
Kept for readers; the scan uses the wider `CLOCK_RANGE_RE`."""
CENTS_RE = re.compile(r"(?<![\d.,$])(?P<n>\d{1,2})\s?(?:cents?\b|\u00a2)", re.I)
CENT_WORDS_RE = re.compile(r"(?<![A-Za-z-])(?P<w>[a-z]+(?:[-\s][a-z]+)?)\s+cents?\b", re.I)
CENT_WORDS_AT_RE = re.compile(r"(?<![A-Za-z-])(?=(?P<all>(?P<w>[a-z]+(?:[-\s][a-z]+)?)\s+cents?\b))", re.I)
"""`CENT_WORDS_RE` tried at every word start (a non-number word before the amount, "billed at ten cents",
must not hide it)."""
DECIMAL_COMMA_RE = re.compile(
    r"(?<![\w.,])(?:(?:US|CA|AU)?\$|usd\s?|eur\s?|\u20ac\s?|\u00a3\s?)(?P<n>\d{1,3}(?:\.\d{3})+,\d{2}|\d+,\d{2})(?![\d,.]?\d)"
    r"|(?<![\w.,$])(?P<n2>\d{1,3}(?:\.\d{3})+,\d{2}|\d+,\d{2})(?![\d,.]?\d)(?=\s?(?:\u20ac|eur\b|usd\b|dollars?\b))",
    re.I,
)
"""Money written with a decimal comma (continental style): ``$640,20``, ``US$12.850,40``, ``12.850,40 EUR``.
Only with a currency mark (a bare ``1,20`` may be a list), and a comma followed by exactly two digits (``$1,200``
is twelve hundred)."""
DECIMAL_COMMA_PCT_RE = re.compile(r"(?<![\w.,])(?P<n>\d{1,3}),(?P<f>\d{1,2})(?=\s?(?:%|per\s?cent\b|pct\b))", re.I)
"""<!-- r10-words --> A percentage with a decimal comma (``30,0 %``, ``4,5%``): one or two digits after the comma
(``1,500%`` keeps its thousands comma)."""
NUMBER_RE = re.compile(
    r"(?<![A-Za-z0-9.,\-])(?<![A-Za-z]-)(?P<cur>(?:\$|usd|eur|€|£)\s?)?(?P<n>\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?![\d\-]|[.,]\d|\s\d)|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<pct>\s?%|\s?per\s?cent\b|\s?pct\b)?(?![\d,]*\d)(?!\.\d)",
    re.I,
)
SCALED_RE = re.compile(
    r"(?<![A-Za-z0-9.,\-])(?P<cur>(?:\$|usd|eur|€|£)\s?)?(?P<n>\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:(?P<k>[kK])(?![A-Za-z0-9])|\s?(?P<scale>thousand|million|grand)\b(?!-[A-Za-z]))",
    re.I,
)
"""Digits with a scale: ``30k``, ``75.5k``, ``$1.5k``, ``2 thousand``, ``1.2 million``, ``5 grand`` (money)."""
MONEY_AFTER = re.compile(r"(?:\s?-?\s?(?:dollars?|bucks?)\b|\s?usd\b)", re.I)
"""A currency word right after a number makes it money ("45 dollars", "a 50-dollar fee", "159 USD")."""
PERCENT_AFTER = re.compile(r"\s?(?:%|per\s?cent\b|pct\b)", re.I)
PER_HUNDRED_AFTER = re.compile(
    r"\s+(?:in|out\s+of|per)\s+(?:(?:every|each)\s+)?(?:100|(?:a|one)\s+hundred|every\s+hundred|hundred)(?![\w.,]\d|\w)", re.I
)
"""A rate per hundred after a number, a percentage ("4 in every 100", "four out of every hundred", "6 per 100"; never
a bare "out of 100": a score)."""
PER_HUNDRED_DIGITS = re.compile(r"(?<![\w.,$\-])(?P<n>\d{1,2}(?:\.\d+)?)(?=\s+(?:in|out|per)\b)", re.I)
_FRACTION_WORDS = {"half": Decimal(50), "a half": Decimal(50), "one half": Decimal(50), "a quarter": Decimal(25), "one quarter": Decimal(25),
                   "three quarters": Decimal(75), "three-quarters": Decimal(75), "a fifth": Decimal(20), "one fifth": Decimal(20),
                   "a tenth": Decimal(10), "one tenth": Decimal(10), "two fifths": Decimal(40), "three fifths": Decimal(60),
                   "four fifths": Decimal(80), "a twentieth": Decimal(5)}
FRACTION_OF_RE = re.compile(
    r"(?<![\w-])(?P<f>" + "|".join(sorted((re.escape(w) for w in _FRACTION_WORDS), key=len, reverse=True)) + r")"
    r"\s+of\s+(?!(?:an?\s+)?(?:hour|minute|day|week|month|year|mile|dollar|point|inch|pound|kilo)s?\b)(?=[A-Za-z])",
    re.I,
)
"""<!-- r10-words --> A share said as a fraction of a group is its percentage ("a quarter of recipients" = 25%,
"half of those who opened" = 50%); never of a unit ("a quarter of an hour", "half of a day")."""
ONE_IN_N_RE = re.compile(
    r"(?<![\w.,$\-])(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine)\s+(?:in|out\s+of)\s+(?:(?:every|each)\s+)?"
    r"(?P<m>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty)(?![\w.,]\d|[\w-])"
    r"(?!\s+(?:business\s+|working\s+|calendar\s+)?(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|stars?|points?|attempts?|tries)\b)",
    re.I,
)
"""<!-- r10-words --> A share said as "N in M" ("one in four recipients", "1 in 5", "two out of every ten") is a
percentage when it is exact to a tenth (one in three is not); "out of" needs "every"/"each" ("4 out of 5" is a
score), and a time or score unit after it ("2 in 3 days", "4 in 5 stars") makes it none."""
PHONE_RE = re.compile(
    r"(?<![\w+.\-/$])(?:\+?1[\s.\-]?)?(?:\((?P<a>[2-9]\d{2})\)\s?|(?P<a2>[2-9]\d{2})[\s.\-])(?P<b>\d{3})[\s.\-](?P<c>\d{4})(?![\w\-]|[.,]\d)"
    r"|(?<![\w+])\+1\s?(?P<flat>[2-9]\d{9})(?!\w)"
)
"""A North-American phone number in any common layout (dashes, dots, spaces, parentheses, a +1 or 1 prefix)."""
_LEVEL_NUMBER = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5}
LEVEL_RE = re.compile(
    r"(?<![A-Za-z0-9\-])(?:(?P<p>p-?|sev[\s\-]?)(?P<pn>[0-9])|(?P<w>priority|severity|tier|level)(?:[\s\-]?|(?:\*\*|__)?\s*:(?P<lab>)\s*(?:\*\*|__)?\s*)(?P<wn>[0-9]|one|two|three|four|five|iii|ii|iv|v))"
    r"(?![A-Za-z0-9]|[.,]\d|-[A-Za-z])(?(lab)(?!\s+(?:of|out|in|to|[a-z]+s)\b))",
    re.I,
)
"""A priority/severity/tier/level code: ``P1``, ``P-2``, ``sev 1``, ``priority one``, ``Tier II``, ``level 3``; r10-words:
also under its label ``Priority: 2``, ``**Severity:** 1`` (not before a plural noun or "of": ``Priority: 2 tickets``,
``Level: 3 of 5``)."""
LEVEL_MORE_RE = re.compile(r"\s*(?:,|/|&|\bor\b|\band\b|\bto\b|-|\u2013)\s*(?P<n>[1-5]|one|two|three|four|five)(?![A-Za-z0-9]|[.,:]\d|\s*(?:%|percent|am\b|pm\b|a\.m|p\.m|o'clock|(?:dollars?|hours?|minutes?|days?|weeks?|months?|years?|people|users?|seats?)\b))", re.I)
"""A list or range after a level that names more of its scale: ``priority 1 or 2``, ``P1/2``, ``tier 1 and 2``
(the bare numbers are levels too: ``priority 1 or 2 cases``; not before a unit or a time: ``priority 1 for 2 hours``)."""
_LEVEL_SCALE = {"p": "priority", "priority": "priority", "sev": "severity", "severity": "severity", "tier": "tier", "level": "level"}

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
NUMBER_WORDS = {w: i for i, w in enumerate(_ONES)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
NUMBER_WORD_RE = re.compile(
    r"(?<![A-Za-z0-9-])(?:(?P<tens>" + "|".join(_TENS) + r")(?:[-\s](?P<unit>" + "|".join(_ONES[1:10]) + r"))?|(?P<ones>"
    + "|".join(sorted(_ONES, key=len, reverse=True)) + r"))(?![A-Za-z0-9]|-[A-Za-z])",
    re.I,
)
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_ORDINALS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth "
    "sixteenth seventeenth eighteenth nineteenth twentieth"
).split()
ORDINAL_WORDS = {w: i + 1 for i, w in enumerate(_ORDINALS)} | {f"twenty{s}{w}": 20 + i + 1 for s in ("-", " ") for i, w in enumerate(_ORDINALS[:9])}
ORDINAL_WORDS |= {"thirtieth": 30, "thirty-first": 31, "thirty first": 31}
UNIT_HYPHENATED = frozenset(
    "dollar buck cent percent day week month year hour minute night mile point seat user item person people".split()
)
"""Words a number may be hyphenated to and still state it ("a hundred-dollar limit", "thirty-day window")."""
ONE_IS_NO_COUNT_BEFORE = frozenset("the this that which each every any no another someone anyone everyone noone a an".split())
"""Words after which ``one`` is a pronoun ("the one you booked"), not a count."""
ONE_IS_NO_COUNT_AFTER = frozenset(
    "of or and nor but more another other others the a an to is was are were be by in on at for with as if than "
    "i you we it he she they that which who whom whose this these those".split()
)
"""Words after which ``one`` is no count ("one of them", "one or the other", "one is ready")."""
ONE_IS_A_COUNT_BEFORE = frozenset("only exactly just".split())
"""``only one``, ``exactly one``, ``just one`` state a count even at the end of a clause."""
A_SINGLE_RE = re.compile(r"(?<![A-Za-z])(?:a|one)\s+(?P<w>single)\s+(?=[A-Za-z])(?!(?:room|rooms|bed|beds|occupancy|supplement|ticket)\b)", re.I)
"""``a single integration`` counts one; ``a single room`` is a room type."""

# ---- clock words ---------------------------------------------------------------------------------------------

HOUR_WORDS = {w: i for i, w in enumerate(_ONES) if 1 <= i <= 12}
_MINUTE_WORDS = {w: i for w, i in NUMBER_WORDS.items() if 1 <= i <= 59} | {
    f"{t}{s}{u}": NUMBER_WORDS[t] + NUMBER_WORDS[u] for t in _TENS[:4] for u in _ONES[1:10] for s in ("-", " ")
} | {f"oh{s}{u}": NUMBER_WORDS[u] for u in _ONES[1:10] for s in (" ", "-")}
_H = r"(?:1[0-2]|0?[1-9]|" + "|".join(sorted(HOUR_WORDS, key=len, reverse=True)) + r")"
_MW = "|".join(sorted(_MINUTE_WORDS, key=len, reverse=True))
_AMPM = r"(?P<ap{n}>[ap])\.?\s?m\b\.?"
_PART = (
    r"(?:in\s+the\s+(?P<part{n}>morning|afternoon|evening)|this\s+(?P<this{n}>morning|afternoon|evening)|(?P<night{n}>at\s+night|tonight))"
)
_SUFFIX = r"(?:\s*" + _AMPM + r"|\s+" + _PART + r")"


def _suffix(n: str) -> str:
    return _SUFFIX.replace("{n}", n)


CLOCK_WORDS_RE = re.compile(
    r"(?<![\w.:$])(?P<h>" + _H + r")(?:(?:[:.](?P<m>[0-5]\d))|[\s-](?P<mw>" + _MW + r"))?"
    r"(?P<oclock>\s*o'?\s?clock)?(?:" + _suffix("") + r")?(?![\w])",
    re.I,
)
"""An hour (digits or words, with minutes) marked as a time: am/pm, o'clock, "in the morning", "at night"."""
PAST_TO_RE = re.compile(
    r"(?<![\w$])(?P<q>(?:a\s+)?quarter|half|(?P<mn>[0-5]?\d|" + _MW + r")(?P<minutes>\s+minutes?)?)\s+(?P<rel>past|after|to|before|till)\s+"
    r"(?P<h>" + _H + r")(?![\w:])(?:\s*o'?\s?clock)?(?:" + _suffix("") + r")?",
    re.I,
)
"""``ten past four``, ``half past 3``, ``a quarter to five``, ``20 minutes to 6``."""
MILITARY_RE = re.compile(r"(?<![\w.:$])(?:(?P<h>[01]\d|2[0-3])h(?P<m>[0-5]\d)|(?P<hh>[01]\d|2[0-3])(?P<mm>[0-5]\d)\s?(?:hours|hrs|h)\b)(?![\w])", re.I)
"""``16h10``, ``08h00``, ``1600 hours``, ``0800 hrs`` (a two-digit hour: "3h30" is a duration)."""
_END = r"(?:(?P<named{n}>noon|midday|midnight)|(?P<h{n}>" + _H + r")(?:[:.](?P<m{n}>[0-5]\d))?(?:\s*(?P<ap{n}>[ap])\.?\s?m\b\.?)?)"
CLOCK_RANGE_RE = re.compile(
    r"(?<![\w.:$])(?P<lead>(?:from|between)\s+)?(?P<first>" + _END.replace("{n}", "1") + r")"
    r"\s*(?P<sep>-to-|-|\u2013|\u2014|to|till|til|until|through|and)\s*"
    r"(?P<second>" + _END.replace("{n}", "2") + r")(?![\w:])(?:" + _suffix("3") + r")?",
    re.I,
)
"""An hour range: ends in digits or words or noon/midnight, am/pm on either end or after it ("8 to 10 am",
"8 to 10 in the morning", "noon to 2", "10 till noon"). A range with no mark of a time at all ("5 to 7")
is not read here."""
TIME_FOLLOW = (
    r"(?=\s*(?:[.,;!?)\u2014]|$)|\s+(?:on|today|tomorrow|tonight|this|next|then|instead|sharp|works|is|if|please|that|so|but|and|or|with)\b"
    r"|\s+(?:" + "|".join(sorted(WEEKDAYS, key=len, reverse=True)) + r")\b)"
)
BARE_HOUR_RE = re.compile(
    r"(?<![\w$])(?:at|by|around|from|until|till|before|after|between|for)\s+(?:about\s+|around\s+)?(?P<h>" + _H + r")(?![\w:%$]|[.,]\d)"
    r"(?:\s*(?:-|\u2013|to|till|until|and)\s*(?P<h2>" + _H + r")(?![\w:%$]|[.,]\d))?" + TIME_FOLLOW,
    re.I,
)
"""A bare hour where a time is plainly meant: after at/by/from/until/... and before the clause ends or a day
("at ten.", "for 4 on Monday", "from 8 to 10 tomorrow"): read as a number with the hour as `alts`."""
SLOT_AFTER = re.compile(r"\s*(?:o'?\s?clock\s+)?(?:time\s+)?(?:slots?|windows?|time\s*slots?|appointment\s+slots?|blocks?|shifts?)\b", re.I)
"""r8-words: the noun that makes bare hours before it times ("the ten-to-twelve slot", "8 and 10 windows")."""
_HD = r"(?:1[0-2]|0?[1-9])(?![\w:%$]|[.,]\d)"
HOUR_LIST_RE = re.compile(
    r"(?<![\w$.,:])(?:(?P<lead>at|from|around|between|either)\s+)?(?P<list>" + _HD + r"(?:\s*,\s*" + _HD + r")*(?:,?\s+(?:and|or|&)\s+" + _HD + r")"
    r"|" + _HD + r"(?:\s*,\s*" + _HD + r"){2,})(?P<oclock>\s*o'?\s?clock)?(?P<slot>(?=\s*(?:o'?\s?clock\s+)?(?:time\s+)?(?:slots?|windows?|appointments?|visits?|openings?|blocks?)\b))?",
    re.I,
)
"""r8-words: a list of bare hours said as times: after at/from/between and before the clause ends ("at 8, 10,
12, 2 or 4."), or before o'clock or a slot noun ("the 8, 10, 12, 2 and 4 o'clock windows", "the 10 and 2
slots"); each hour with its two readings (`_clock`). A list of counts ("for 2 or 3 days", "2, 3 and 4
items") is no time."""
LIST_END = re.compile(r"\s*(?:[.;!?(\u2014]|$|,\s+(?:each|all|any|whichever)\b|\s+(?:on|today|tomorrow|this|next|works|is|are|if|that|so|but|with)\b)", re.I)
DAY_RE = re.compile(
    r"(?<![A-Za-z0-9])(?:" + _WEEKDAY + r"\.?,?\s+(?:the\s+)?|(?P<the>the)\s+)(?P<d>[12]?\d|3[01])(?:st|nd|rd|th)(?![A-Za-z0-9])",
    re.I,
)
DAY_WORD_RE = re.compile(
    r"(?<![A-Za-z0-9])" + _WEEKDAY + r"\.?,?\s+the\s+(?P<w>" + "|".join(sorted(ORDINAL_WORDS, key=len, reverse=True)) + r")(?![A-Za-z0-9]|-[A-Za-z])",
    re.I,
)
DAY_WORD_BARE_RE = re.compile(
    r"(?<![A-Za-z0-9])(?P<the>the)\s+(?P<w>" + "|".join(sorted(ORDINAL_WORDS, key=len, reverse=True)) + r")(?![A-Za-z0-9]|-[A-Za-z])",
    re.I,
)
"""<!-- r10-words --> A day of the month in words without a weekday ("on the seventh", "by the fifteenth"): read
under the same guards as "the 7th" (`_days`), after a narrower set of prepositions (`DAY_WORD_PREPOSITIONS`)."""
DAY_WORD_PREPOSITIONS = frozenset("on by until till before after since starting due".split())
DAY_PREPOSITIONS = frozenset("on by until till before after from for through since starting due and or to between".split())
"""Words before "the 7th" that make it a day of the month ("on the 7th", "by the 15th")."""
DAY_FOLLOWERS = frozenset(
    "at and or to through till until from between in is was will would then instead so but as which when with for by on if "
    "please works morning afternoon evening night it that this we i you he she they there since before after".split()
)
"""Words that may follow a day of the month ("the 7th at 10:00"); another word makes it an ordinal of a thing
("the 7th floor")."""


def _number_word_value(text: str, m: re.Match[str]) -> int | None:
    """The count a number-word match states, or None when ``one`` is used as a pronoun."""
    if m["ones"] is not None:
        word = m["ones"].lower()
        if word == "one":
            before = re.findall(r"[a-z']+", text[: m.start()].lower()[-40:])
            after = re.match(r"\s+([A-Za-z][a-z'-]*)", text[m.end() :])
            prev = before[-1] if before else ""
            if prev in ONE_IS_A_COUNT_BEFORE:
                return 1
            if len(before) >= 2 and before[-2] in ONE_IS_A_COUNT_BEFORE and prev not in ONE_IS_NO_COUNT_BEFORE and (after is None or after.group(1).lower() not in ONE_IS_NO_COUNT_AFTER):
                return 1  # "only supports one", "only allows one": the count of the verb's object
            if prev in ONE_IS_NO_COUNT_BEFORE or after is None or after.group(1).lower() in ONE_IS_NO_COUNT_AFTER:
                return None
        return NUMBER_WORDS[word]
    return NUMBER_WORDS[m["tens"].lower()] + (NUMBER_WORDS[m["unit"].lower()] if m["unit"] else 0)


# ---- cardinal numbers in words -------------------------------------------------------------------------------

_TOKEN_RE = re.compile(r"[A-Za-z]+")
_DIGIT_WORDS = {w: i for i, w in enumerate(_ONES[:10])} | {"oh": 0}


@dataclass(frozen=True)
class _Run:
    """A cardinal written in words: its span, value and how many words it took."""

    start: int
    end: int
    value: Decimal
    words: int


@lru_cache(maxsize=4096)
def _cardinal_runs(text: str) -> tuple[_Run, ...]:
    """Every cardinal written in words (``one hundred and ten``, ``a thousand``, ``nine thousand one hundred``,
    ``fifteen hundred``, ``forty-two``, ``four point five``), longest first from the left, never overlapping."""
    toks = [(m.start(), m.end(), m.group(0).lower()) for m in _TOKEN_RE.finditer(text)]
    runs: list[_Run] = []
    i = 0
    while i < len(toks):
        parsed = _parse_cardinal(text, toks, i)
        if parsed is None:
            i += 1
            continue
        value, j = parsed
        runs.append(_Run(toks[i][0], toks[j - 1][1], value, j - i))
        i = j
    return tuple(runs)


def _joined(text: str, toks: list[tuple[int, int, str]], k: int) -> bool:
    """Token k follows token k-1 with only a space or a hyphen between them."""
    return 0 < k < len(toks) and re.fullmatch(r"\s+|\s*-\s*", text[toks[k - 1][1] : toks[k][0]]) is not None


def _below_hundred(text: str, toks: list[tuple[int, int, str]], k: int) -> tuple[int, int] | None:
    if k >= len(toks):
        return None
    word = toks[k][2]
    if word in _TENS:
        if k + 1 < len(toks) and toks[k + 1][2] in _ONES[1:10] and _joined(text, toks, k + 1):
            return NUMBER_WORDS[word] + NUMBER_WORDS[toks[k + 1][2]], k + 2
        return NUMBER_WORDS[word], k + 1
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word], k + 1
    return None


def _group(text: str, toks: list[tuple[int, int, str]], k: int) -> tuple[int, int] | None:
    """A number below a thousand (or ``fifteen hundred``): [below-hundred | a] [hundred [and] [below-hundred]]."""
    first = _below_hundred(text, toks, k)
    if first is None:
        if k + 1 < len(toks) and toks[k][2] == "a" and toks[k + 1][2] == "hundred" and _joined(text, toks, k + 1):
            first = (1, k + 1)
        else:
            return None
    value, j = first
    if j < len(toks) and toks[j][2] == "hundred" and _joined(text, toks, j) and value >= 1:
        value, j = value * 100, j + 1
        rest = _after_and(text, toks, j)
        if rest is not None:
            value, j = value + rest[0], rest[1]
    return value, j


def _after_and(text: str, toks: list[tuple[int, int, str]], j: int) -> tuple[int, int] | None:
    """The below-hundred part after a hundred or a thousand, with or without "and"."""
    if j < len(toks) and toks[j][2] == "and" and _joined(text, toks, j):
        part = _below_hundred(text, toks, j + 1)
        if part is not None and _joined(text, toks, j + 1) and part[0] > 0:
            return part
        return None
    if j < len(toks) and _joined(text, toks, j):
        part = _below_hundred(text, toks, j)
        if part is not None and part[0] > 0 and toks[j][2] != "zero":
            return part
    return None


_HYPHEN_BEFORE = re.compile(r"[A-Za-z0-9]-\s*$")


def _parse_cardinal(text: str, toks: list[tuple[int, int, str]], i: int) -> tuple[Decimal, int] | None:
    """The cardinal starting at token i, as (value, index after it), or None."""
    if i > 0 and toks[i][0] - toks[i - 1][1] <= 2 and _HYPHEN_BEFORE.search(text, 0, toks[i][0]):
        return None  # "x-one": a word hyphenated to the number
    total, j, last_scale = 0, i, None
    while True:
        if j < len(toks) and toks[j][2] == "a" and j + 1 < len(toks) and toks[j + 1][2] in ("thousand", "million", "billion") and _joined(text, toks, j + 1):
            group, k = 1, j + 1
        else:
            parsed = _group(text, toks, j) if j == i or _joined(text, toks, j) else None
            if parsed is None:
                break
            group, k = parsed
        scale = toks[k][2] if k < len(toks) and _joined(text, toks, k) else None
        if scale in ("thousand", "million", "billion") and (last_scale is None or SCALES[scale] < SCALES[last_scale]):
            total += group * SCALES[scale]
            j, last_scale = k + 1, scale
            rest = _after_and(text, toks, j) if j < len(toks) and toks[j][2] == "and" else None
            if rest is not None and (rest[1] >= len(toks) or toks[rest[1]][2] not in SCALES):
                total += rest[0]
                j = rest[1]
                break
            continue
        total += group
        j = k
        break
    if j == i or (j == i + 1 and toks[i][2] == "a"):
        return None
    if last_scale is None and j - i == 1 and toks[i][2] == "a":
        return None
    value = Decimal(total)
    if j + 1 < len(toks) and toks[j][2] == "point" and _joined(text, toks, j) and toks[j + 1][2] in _DIGIT_WORDS and _joined(text, toks, j + 1):
        digits, k = "", j + 1
        while k < len(toks) and toks[k][2] in _DIGIT_WORDS and (k == j + 1 or _joined(text, toks, k)):
            digits += str(_DIGIT_WORDS[toks[k][2]])
            k += 1
        value, j = Decimal(f"{total}.{digits}"), k
    after = text[toks[j - 1][1] :]
    hyphen = re.match(r"-([A-Za-z]+)", after)
    if hyphen and singular(hyphen.group(1)) not in UNIT_HYPHENATED and hyphen.group(1).lower() not in SCALES:
        return None  # "two-factor", "one-way"
    if re.match(r"[A-Za-z0-9]", after[:1]):
        return None
    return value, j


@dataclass(frozen=True)
class Value:
    """One value found in a text: its kind, canonical value and character span; `money` when a number is
    written as money; `alts`, other (kind, value) readings the same words also state (an hour with no
    am/pm reads both halves of the day; a bare hour where a time is meant is also that time)."""

    kind: str
    value: object
    start: int
    end: int
    text: str
    money: bool = False
    alts: tuple[tuple[str, object], ...] = ()

    def readings(self) -> tuple[tuple[str, object], ...]:
        return ((self.kind, self.value), *self.alts)

    def same(self, other: Value) -> bool:
        """Equal facts: same kind and canonical value in one of their readings (a yearless date equals any
        year's same day; a day of the month equals any date with that day)."""
        return any(_same_reading(k1, v1, k2, v2) for k1, v1 in self.readings() for k2, v2 in other.readings())


def _same_reading(k1: str, v1: object, k2: str, v2: object) -> bool:
    if k1 != k2:
        # a plain number phrase ("31.1") is satisfied by the same percentage ("31.1%")
        if {k1, k2} == {"number", "percent"}:
            return k1 == "number" and v1 == v2
        if {k1, k2} == {"date", "day"}:
            (y, m, d), (day, weekday) = (v1, v2) if k1 == "date" else (v2, v1)  # type: ignore[misc]
            return d == day and (weekday is None or y is None or _weekday(y, m, d) == weekday)
        return False
    if k1 == "date":
        (y1, m1, d1), (y2, m2, d2) = v1, v2  # type: ignore[misc]
        return (m1, d1) == (m2, d2) and (y1 is None or y2 is None or y1 == y2)
    if k1 == "day":
        (d1, w1), (d2, w2) = v1, v2  # type: ignore[misc]
        return d1 == d2 and (w1 is None or w2 is None or w1 == w2)
    return v1 == v2


def _weekday(year: int, month: int, day: int) -> int | None:
    try:
        return _dt.date(year, month, day).weekday()
    except ValueError:
        return None


MONEY_TEXT = re.compile(r"[$€£\u00a2]|usd|eur|cents?\b|\.\d\d\b|dollars?\b|bucks?\b", re.I)


def is_money(value: Value) -> bool:
    """An amount written as money: a currency sign, code or word, cents or two decimals ("$45", "45.00",
    "45 dollars", "forty-five bucks", "a 45-dollar fee")."""
    return value.kind == "number" and (value.money or bool(MONEY_TEXT.search(value.text)))


def _day_first(year: int | None, month: int, day: int) -> tuple[tuple[str, object], ...]:
    """The other reading of a full numeric date whose two numbers could both be the month ("07/12/2026" is July
    12 to an American and 7 December to most of the world): both readings are stated. A short date without its
    year ("9/12") stays month first."""
    if day <= 12 and day != month and _valid_date(day, month):
        return (("date", (year, day, month)),)
    return ()


def _valid_date(month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


def find_values(text: str) -> list[Value]:
    """Every value in `text`, by position, without overlaps: ids first (their digits are not numbers),
    then phones, levels, dates and times (their digits are not numbers), then amounts, numbers and number
    words. A fresh list each call; the scan itself is kept per text (values are frozen), because the judge
    reads each sentence many times."""
    return list(_values_in(text))


@lru_cache(maxsize=16384)
def _values_in(text: str) -> tuple[Value, ...]:
    return tuple(_scan_values(text))


def _hour(word: str) -> int:
    return HOUR_WORDS[word.lower()] if word.lower() in HOUR_WORDS else int(word)


def _minutes(digits: str | None, words: str | None) -> int:
    if digits:
        return int(digits)
    if words:
        return _MINUTE_WORDS[re.sub(r"\s+", " ", words.lower())]
    return 0


def _half(m: re.Match[str], n: str) -> str | None:
    """'a' or 'p' from an am/pm or a part of the day in group set `n`, else None."""
    ap = m.group(f"ap{n}")
    if ap:
        return ap.lower()
    part = m.group(f"part{n}") or m.group(f"this{n}")
    if part:
        return "a" if part.lower() == "morning" else "p"
    if m.group(f"night{n}"):
        return "p"
    return None


def _clock(hour: int, minute: int, half: str | None) -> tuple[int, tuple[tuple[str, object], ...]]:
    """Minutes after midnight of an hour 1-12: with am/pm one reading; without, both halves of the day,
    the afternoon first for 1-7, the morning for 8-11 (business hours), 12 as noon."""
    if half is not None:
        return (hour % 12 + (12 if half == "p" else 0)) * 60 + minute, ()
    am, pm = (hour % 12) * 60 + minute, (hour % 12 + 12) * 60 + minute
    first, other = (pm, am) if 1 <= hour <= 7 or hour == 12 else (am, pm)
    return first, (("time", other),)


_DIGIT = re.compile(r"\d")


def _scan_values(text: str) -> list[Value]:
    found: list[Value] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, value: object, start: int, end: int, money: bool = False, alts: tuple[tuple[str, object], ...] = ()) -> bool:
        if not _overlaps(taken, start, end):
            found.append(Value(kind, value, start, end, text[start:end], money, alts))
            taken.append((start, end))
            return True
        return False

    # Patterns that match only with a digit in them are not tried on a text without one (most of a
    # criterion's phrases, many sentences): the same values, a third of the scans.
    digits = _DIGIT.search(text) is not None
    for m in ISO_DT_RE.finditer(text) if digits else ():
        y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
        if _valid_date(mo, d):
            add("date", (y, mo, d), m.start(), m.start() + 10)
            if m["hh"] is not None:
                taken.remove((m.start(), m.start() + 10))
                add("time", int(m["hh"]) * 60 + int(m["mm"]), m.start("hh"), m.end("mm"))
                taken.append((m.start(), m.start() + 10))
    for m in PHONE_RE.finditer(text) if digits else ():
        digits = m["flat"] or (m["a"] or m["a2"]) + m["b"] + m["c"]
        add("phone", digits, m.start(), m.end())
    for m in LEVEL_RE.finditer(text):
        family = re.sub(r"[\s\-]", "", (m["p"] or m["w"]).lower())
        number = (m["pn"] or m["wn"]).lower()
        if number in ("ii", "iii", "iv", "v") and (family not in ("tier", "level") or not m["wn"].isupper()):
            continue  # a roman numeral only as "Tier II" / "Level III" (never "I": the pronoun)
        add("level", (_LEVEL_SCALE[family], int(number) if number.isdigit() else _LEVEL_NUMBER[number]), m.start(), m.end())
        at = m.end()
        while (more := LEVEL_MORE_RE.match(text, at)) is not None:  # "priority 1 or 2": both are priorities
            n = more["n"].lower()
            add("level", (_LEVEL_SCALE[family], int(n) if n.isdigit() else _LEVEL_NUMBER[n]), more.start("n"), more.end())
            at = more.end()
    for m in ID_RE.finditer(text):
        if not _overlaps(taken, m.start(), m.end()) and not re.fullmatch(r"(?:noon|midday|midnight)-\d{1,2}", m.group(0), re.I):
            add("id", m.group(0).upper(), m.start(), m.end())  # "noon-4" is a range, not an id
    for m in US_DATE_RE.finditer(text) if digits else ():
        if _valid_date(int(m["m"]), int(m["d"])):
            add("date", (int(m["y"]), int(m["m"]), int(m["d"])), m.start(), m.end(), alts=_day_first(int(m["y"]), int(m["m"]), int(m["d"])))
    for m in DAY_FIRST_DATE_RE.finditer(text) if digits else ():
        year = int(m["y"]) if len(m["y"]) == 4 else 2000 + int(m["y"])
        add("date", (year, int(m["m"]), int(m["d"])), m.start(), m.end())
    for m in DOTTED_DATE_RE.finditer(text) if digits else ():  # r10-words
        if _valid_date(int(m["m"]), int(m["d"])) and int(m["d"]) >= 1:
            add("date", (int(m["y"]) if len(m["y"]) == 4 else 2000 + int(m["y"]), int(m["m"]), int(m["d"])), m.start(), m.end())
    for regex in (MDY_RE, DMY_RE) if digits else ():
        for m in regex.finditer(text):
            month, day = MONTHS[m["mon"].lower()], int(m["day"])
            if m["mon"].lower() == "may" and regex is MDY_RE and not m["year"] and m.start() > 0 and text[max(0, m.start() - 1)].isalpha():
                continue
            if _valid_date(month, day):
                add("date", (int(m["year"]) if m["year"] else None, month, day), m.start(), m.end())
    for m in US_SHORT_DATE_RE.finditer(text) if digits else ():
        if _valid_date(int(m["m"]), int(m["d"])) and int(m["d"]) >= 1:
            add("date", (2000 + int(m["y"]) if m["y"] else None, int(m["m"]), int(m["d"])), m.start(), m.end())
    _days(text, add)
    _times(text, add)
    _per_hundred(text, add)
    _shares(text, add)
    _money_words(text, add)
    for m in CENTS_RE.finditer(text) if digits else ():
        add("number", (Decimal(m["n"]) / 100).normalize(), m.start(), m.end(), money=True)
    for m in CENT_WORDS_AT_RE.finditer(text):  # at every word: "at ten cents" is tried as "ten cents" too
        words = NUMBER_WORD_RE.fullmatch(m["w"])
        if words is not None and (count := _number_word_value(m["w"] + " cents", words)) is not None and count < 100:
            add("number", (Decimal(count) / 100).normalize(), m.start(), m.end("all"), money=True)
    for m in DECIMAL_COMMA_RE.finditer(text) if digits else ():
        digits = (m["n"] or m["n2"]).replace(".", "").replace(",", ".")
        add("number", Decimal(digits).normalize(), m.start(), m.end(), money=True)
    for m in DECIMAL_COMMA_PCT_RE.finditer(text) if digits else ():  # r10-words
        pct = PERCENT_AFTER.match(text, m.end())
        add("percent", Decimal(m["n"] + "." + m["f"]).normalize(), m.start(), pct.end() if pct else m.end())
    for m in TIME_RE.finditer(text) if digits else ():
        if m["h24"] is not None:
            add("time", int(m["h24"]) * 60 + int(m["m24"]), m.start(), m.end())
        else:
            hour = int(m["h"])
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if m["ap"].lower() == "p" else 0)
            add("time", hour * 60 + int(m["m"] or 0), m.start(), m.end())
    for m in NAMED_TIME_RE.finditer(text):
        add("time", 0 if m["w"].lower() == "midnight" else 720, m.start(), m.end())
    soft = _bare_hours(text)
    for m in SCALED_RE.finditer(text) if digits else ():
        try:
            number = Decimal(m["n"].replace(",", ""))
        except InvalidOperation:
            continue
        scale = 1000 if m["k"] or (m["scale"] or "").lower() in ("thousand", "grand") else 1_000_000
        money = bool(m["cur"]) or (m["scale"] or "").lower() == "grand" or MONEY_AFTER.match(text, m.end()) is not None
        add("number", (number * scale).normalize(), m.start(), m.end(), money=money)
    for m in NUMBER_RE.finditer(text) if digits else ():
        try:
            number = Decimal(re.sub(r"[,\s\u00a0\u202f\u2009]", "", m["n"])).normalize()
        except InvalidOperation:
            continue
        if m["pct"]:
            add("percent", number, m.start(), m.end())
            continue
        money = bool(m["cur"]) or MONEY_AFTER.match(text, m.end()) is not None
        add("number", number, m.start(), m.end(), money=money, alts=soft.get(m.start("n"), ()))
    for m in A_SINGLE_RE.finditer(text):
        add("number", Decimal(1), m.start(), m.end("w"))
    _word_numbers(text, add, soft)
    return sorted(found, key=lambda v: v.start)


Adder = Callable[..., bool]


def _days(text: str, add: Adder) -> None:
    """Days of the month named without their month (`DAY_RE`, `DAY_WORD_RE`)."""
    for regex in (DAY_RE, DAY_WORD_RE, DAY_WORD_BARE_RE):
        for m in regex.finditer(text):
            day = int(m["d"]) if regex is DAY_RE else ORDINAL_WORDS[re.sub(r"\s+", " ", m["w"].lower())]
            weekday = WEEKDAYS[m["wd"].lower()] if regex is not DAY_WORD_BARE_RE and m["wd"] else None
            if regex is DAY_WORD_BARE_RE and (re.findall(r"[a-z]+", text[: m.start()].lower())[-1:] or [""])[0] not in DAY_WORD_PREPOSITIONS:
                continue
            after = text[m.end() :]
            month_after = re.match(r"\s+of\s+(?:the|this|next)\s+month\b", after, re.I)
            if weekday is None:
                before = re.findall(r"[a-z]+", text[: m.start()].lower())[-1:]
                if not month_after and not (before and before[0] in DAY_PREPOSITIONS):
                    continue
            following = re.match(r",?\s+([A-Za-z]+)", after)
            if weekday is None and following and not month_after and following.group(1).lower() not in DAY_FOLLOWERS and not following.group(1)[0].isupper():
                continue  # "the 7th floor" (r8-words: never after a weekday: "Tuesday the 1st off", "Monday the 7th, first slot")
            start = m.start("wd") if weekday is not None else m.start("the")
            add("day", (day, weekday), start, m.end() + (month_after.end() if month_after else 0))


def _times(text: str, add: Adder) -> None:
    """Clock times written in words or with a part of the day, ranges, and 24-hour forms with an h."""
    for m in CLOCK_RANGE_RE.finditer(text):
        _clock_range(text, m, add)
    for m in PAST_TO_RE.finditer(text):
        q = m["q"].lower()
        rel = m["rel"].lower()
        if "quarter" in q:
            minutes = 15
        elif q == "half":
            minutes = 30
            if rel not in ("past", "after"):
                continue
        else:
            if rel in ("to", "before", "till") and not m["minutes"]:
                continue  # "10 to 4" is a range, not 3:50
            if rel == "after" and not (m["mn"] and not m["mn"][0].isdigit()):
                continue  # "10 after 4": a count after 4; "ten after four" is a time
            minutes = int(m["mn"]) if m["mn"][0].isdigit() else _MINUTE_WORDS[re.sub(r"\s+", " ", m["mn"].lower())]
            if not 1 <= minutes <= 59:
                continue
        hour = _hour(m["h"])
        base = (hour % 12) * 60
        clock = (base + minutes if rel in ("past", "after") else base - minutes) % 720
        value, alts = _clock(clock // 60 or 12, clock % 60, _half(m, ""))
        add("time", value, m.start(), m.end(), alts=alts)
    for m in CLOCK_WORDS_RE.finditer(text):
        hour = _hour(m["h"])
        if not 1 <= hour <= 12:
            continue
        half = _half(m, "")
        if half is None and not m["oclock"]:
            continue
        value, alts = _clock(hour, _minutes(m["m"], m["mw"]), half)
        add("time", value, m.start(), m.end(), alts=alts)
    for m in MILITARY_RE.finditer(text):
        hour, minute = (int(m["h"]), int(m["m"])) if m["h"] else (int(m["hh"]), int(m["mm"]))
        add("time", hour * 60 + minute, m.start(), m.end())


def _end_value(m: re.Match[str], n: str) -> tuple[int | None, int, int]:
    """(fixed minutes or None, hour, minute) of one end of a clock range."""
    named = m.group(f"named{n}")
    if named:
        minutes = 0 if named.lower() == "midnight" else 720
        return minutes, minutes // 60, 0
    hour, minute = _hour(m.group(f"h{n}")), int(m.group(f"m{n}") or 0)
    ap = m.group(f"ap{n}")
    if ap:
        return (hour % 12 + (12 if ap.lower() == "p" else 0)) * 60 + minute, hour, minute
    return None, hour, minute


def _clock_range(text: str, m: re.Match[str], add: Adder) -> None:
    """Both ends of an hour range (`CLOCK_RANGE_RE`): an end with its own am/pm or noon is fixed; the last
    end takes the range's suffix; an open first end takes the end's half of the day unless that would put it
    after the end ("11 to 1 pm"); an open last end is the first hour after the start ("noon to 2")."""
    a, h1, m1 = _end_value(m, "1")
    b, h2, m2 = _end_value(m, "2")
    suffix = _half(m, "3")
    if b is None and suffix is not None:
        b = (h2 % 12 + (12 if suffix == "p" else 0)) * 60 + m2
    if a is None and b is None:
        if not SLOT_AFTER.match(text, m.end()):
            return  # "5 to 7": no mark of a time
        a, _ = _clock(h1, m1, None)  # r8-words: "the ten-to-twelve slot", "a 2-4 window": business hours
    if m["sep"].lower() == "and" and not m["lead"] and (m.group("named2") or b is None):
        return  # "8 and noon", "noon and 2": a list, not a range
    if a is None:
        end = 24 * 60 if (m.group("named2") or "").lower() == "midnight" else b
        half = suffix if suffix is not None else ("p" if end >= 720 else "a")  # type: ignore[operator]
        a = (h1 % 12 + (12 if half == "p" else 0)) * 60 + m1
        if a > end:  # type: ignore[operator]
            a -= 12 * 60
        a %= 24 * 60
    if b is None:
        b = (h2 % 12) * 60 + m2
        while b <= a:
            b += 12 * 60
        b %= 24 * 60
    start = m.start("first")
    add("time", a, start, m.end("first"))
    add("time", b, m.start("second"), m.end())


def _per_hundred(text: str, add: Adder) -> None:
    """A rate per hundred is a percentage ("4 in every 100", "four out of every hundred", "6 per 100" = 4%, 4%, 6%),
    the number in digits or words; an "out of" needs "every"/"each" ("61 out of 100" is a score, not a rate)."""
    starts: list[tuple[int, int, Decimal]] = [(m.start(), m.end(), Decimal(m["n"])) for m in PER_HUNDRED_DIGITS.finditer(text)]
    starts += [(run.start, run.end, run.value) for run in _cardinal_runs(text) if run.value < 100]
    for start, end, number in starts:
        m = PER_HUNDRED_AFTER.match(text, end)
        if m is None or (re.match(r"\s+out\s+of\s+(?!every|each)", text[end:], re.I)):
            continue
        add("percent", number.normalize(), start, m.end())


def _shares(text: str, add: Adder) -> None:
    """r10-words: a share said as a fraction or as "N in M" (`FRACTION_OF_RE`, `ONE_IN_N_RE`) is a percentage."""
    for m in FRACTION_OF_RE.finditer(text):
        add("percent", _FRACTION_WORDS[re.sub(r"\s+", " ", m["f"].lower())], m.start(), m.end("f"))
    for m in ONE_IN_N_RE.finditer(text):
        if re.match(r"\s+out\s+of\s+(?!every|each)", text[m.end("n") :], re.I):
            continue
        n, d = (int(x) if x.isdigit() else NUMBER_WORDS[x.lower()] for x in (m["n"], m["m"]))
        share = Decimal(n) * 100 / Decimal(d) if d else None
        if share is not None and 0 < n < d and share == share.quantize(Decimal("0.1")):
            add("percent", share.normalize(), m.start(), m.end())


def _bare_hours(text: str) -> dict[int, tuple[tuple[str, object], ...]]:
    """The start of each bare hour where a time is plainly meant (`BARE_HOUR_RE`, `HOUR_LIST_RE`), with its two
    readings."""
    out: dict[int, tuple[tuple[str, object], ...]] = {}
    for m in HOUR_LIST_RE.finditer(text):  # r8-words: "at 8, 10, 12, 2 or 4", "the 8, 10 and 12 o'clock slots"
        slot = m["slot"] is not None  # an empty look-ahead group: matched or not
        if not (m["lead"] or m["oclock"] or slot) or (m["lead"] and not (slot or m["oclock"] or LIST_END.match(text, m.end()))):
            continue
        for h in re.finditer(r"\d+", m["list"]):
            hour = int(h.group())
            if 1 <= hour <= 12:
                first, other = _clock(hour, 0, None)
                out[m.start("list") + h.start()] = (("time", first), *other)
    for m in BARE_HOUR_RE.finditer(text):
        for group in ("h", "h2"):
            if m[group] is None:
                continue
            hour = _hour(m[group])
            if 1 <= hour <= 12:
                first, other = _clock(hour, 0, None)
                out[m.start(group)] = (("time", first), *other)
    return out


_GRAND = re.compile(r"\s+grand\b", re.I)
_SCALE_DOLLARS = re.compile(r"(?<![\w-])(?P<s>hundred|thousand)(?=\s?-?\s?(?:dollars?|bucks?)\b)", re.I)
_DIGIT_DOLLARS = re.compile(r"(?<![\w.,$])(?P<d>\d{1,3}(?:,\d{3})*|\d+)\s?(?:dollars?|bucks?)\b", re.I)


def _money_words(text: str, add: Adder) -> None:
    """Amounts in words or digits with a currency word ("sixty dollars", "a hundred bucks", "the
    hundred-dollar limit", "forty-two dollars and thirty cents", "42 dollars and 30 cents"), and
    percentages in words ("four percent", "six per cent")."""
    for run in _cardinal_runs(text):
        after = text[run.end :]
        pct = PERCENT_AFTER.match(after)
        if pct:
            add("percent", run.value.normalize(), run.start, run.end + pct.end())
            continue
        grand = _GRAND.match(after)
        if grand:
            add("number", (run.value * 1000).normalize(), run.start, run.end + grand.end(), money=True)
            continue
        cur = MONEY_AFTER.match(after)
        if cur:
            end = run.end + cur.end()
            amount = run.value + _cents_after(text, end)[0]
            add("number", amount.normalize(), run.start, _cents_after(text, end)[1], money=True)
    for m in _SCALE_DOLLARS.finditer(text):
        end = MONEY_AFTER.match(text, m.end()).end()  # type: ignore[union-attr]
        add("number", Decimal(SCALES[m["s"].lower()]), m.start(), end, money=True)  # "the hundred-dollar limit"
    for m in _DIGIT_DOLLARS.finditer(text):
        cents, end = _cents_after(text, m.end())
        if cents:
            add("number", (Decimal(m["d"].replace(",", "")) + cents).normalize(), m.start(), end, money=True)


def _cents_after(text: str, pos: int) -> tuple[Decimal, int]:
    """The cents after "... dollars" ("and thirty cents", ", 30 cents"), as (amount, end) — (0, pos) if none."""
    m = re.match(r"\s*,?\s*(?:and\s+)?(?P<n>\d{1,2}|[a-z]+(?:[-\s][a-z]+)?)\s+cents?\b", text[pos:], re.I)
    if m is None:
        # the cents said bare after the dollars, ending the clause: "139 dollars 20.", "forty dollars fifty,"
        m = re.match(r"\s+(?:and\s+)?(?P<n>\d{2}|[a-z]+(?:-[a-z]+)?)(?=\s*(?:$|[.,;:!?)\u2014\u2013])|\s+(?:in|on|left|remaining|available|of|is|was|has|will|would|goes|went|comes|came|back|still|to|for|from|at|that|which|and|but)\b)(?![.,]\d)", text[pos:], re.I)
        words = None if m is None or m["n"].isdigit() else NUMBER_WORD_RE.fullmatch(m["n"])
        if m is None or not (m["n"].isdigit() or (words is not None and (words["tens"] or _ONES.index(words["ones"].lower()) >= 10))):
            return Decimal(0), pos  # cents said bare are two digits or "ten" to "ninety-nine" ("forty dollars five" is none)
    if m["n"].isdigit():
        return Decimal(m["n"]) / 100, pos + m.end()
    words = NUMBER_WORD_RE.fullmatch(m["n"])
    if words is None or words["ones"] == "zero":
        return Decimal(0), pos
    count = NUMBER_WORDS[words["tens"].lower()] + (NUMBER_WORDS[words["unit"].lower()] if words["unit"] else 0) if words["tens"] else NUMBER_WORDS[words["ones"].lower()]
    return Decimal(count) / 100, pos + m.end()


def _word_numbers(text: str, add: Adder, soft: dict[int, tuple[tuple[str, object], ...]]) -> None:
    """Cardinals in words: a run of several words is one number ("one hundred and ten"); a single word keeps
    the pronoun rule for "one"."""
    for run in _cardinal_runs(text):
        if run.words > 1:
            add("number", run.value.normalize(), run.start, run.end, alts=soft.get(run.start, ()))
            continue
        m = NUMBER_WORD_RE.match(text, run.start)
        if m is None or m.end() != run.end:
            if re.match(r"-[A-Za-z]", text[run.end : run.end + 2]):  # "thirty-day": hyphenated to a unit (`_parse_cardinal`)
                add("number", run.value.normalize(), run.start, run.end)
            continue
        count = _number_word_value(text, m)
        if count is not None:
            add("number", Decimal(count).normalize(), m.start(), m.end(), alts=soft.get(m.start(), ()))
        elif m.start() in soft:
            add("number", Decimal(1), m.start(), m.end(), alts=soft[m.start()])  # "at one." is a time


def phrase_value(phrase: str) -> Value | None:
    """The value a phrase IS, when the whole phrase is one value (``$40``, ``40.00``, ``December 2``,
    ``2026-12-02``, ``10:00``, ``CASE-5016``, ``4.0%``, ``P1``, ``tier 2``, ``360-555-0145``); None for
    words or a value inside words (``30 days``). An id prefix like ``CASE-`` is not a value (it matches as
    text)."""
    stripped = phrase.strip().rstrip(".")
    values = find_values(stripped)
    if len(values) != 1:
        return None
    value = values[0]
    rest = (stripped[: value.start] + stripped[value.end :]).strip().lower()
    if rest in ("", "dollars", "usd", "$"):
        return value
    return None


def phrase_count(phrase: str) -> tuple[Value, tuple[str, ...]] | None:
    """The count a phrase states with its noun (``3 items``, ``one member``, ``30 days``, ``2 open
    tickets``): a number (digits or words) first, then one to four words and nothing else; None
    otherwise. The judge matches it as that number in any written form followed by the same words."""
    stripped = phrase.strip().rstrip(".")
    values = find_values(stripped)
    if len(values) != 1 or values[0].start != 0 or values[0].kind not in ("number", "percent"):
        return None
    rest = stripped[values[0].end :]
    if not re.match(r"[\s-]", rest):  # "12A" is a code, not a count of "A"
        return None
    words = re.findall(r"[A-Za-z][A-Za-z']*", rest)
    if not 1 <= len(words) <= 4 or re.sub(r"[A-Za-z']+|[\s-]", "", rest):
        return None
    return values[0], tuple(w.lower() for w in words)


def singular(word: str) -> str:
    """A crude singular, enough to say "items" and "item", "hours" and "hour" name the same thing."""
    word = word.lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


# ---- a customer's answer, when the kind of value being decided is known -----------------------------------------

_EXPECT_KINDS = {"time": ("time",), "money": ("number",), "amount": ("number",), "number": ("number",), "date": ("date", "day"), "percent": ("percent", "number")}
_SPOKEN_HOUR = re.compile(r"(?<![\w$.:,])(?P<h>" + _H + r")(?![\w%$]|[.:,]\d)(?!\s+(?:dollars?|bucks?|percent|per\s?cent|cents?|usd|%)\b)", re.I)


def spoken_values(text: str, expect: str) -> list[Value]:
    """The values of kind `expect` a customer's short answer states, read as that kind where the answer
    leaves it open: `expect` is "time" (a bare hour 1-12 is a time in either half of the day: "put me down
    for ten", "4 works", "eleven's fine"), "money"/"amount" (a bare number is an amount: "anything under
    fifty bucks", "up to 200"), "number", "date" (a date or a day of the month: "the 7th") or "percent".

    Returns `Value`s in text order (kind "time" / "number" / "date" or "day" / "percent"; compare them with
    `Value.same`, which also tries an hour's other half of the day). Values that are plainly of another kind
    (an id, a phone, a level, a date when a time is asked for) are left out; an empty list when the answer
    states none. Numbers glued to a noun that is not money ("for 2 people", "3 nights") are no time and no
    amount."""
    kinds = _EXPECT_KINDS.get(expect)
    if kinds is None:
        raise ValueError(f"spoken_values: expect must be one of {sorted(_EXPECT_KINDS)}, got {expect!r}")
    out: list[Value] = []
    for value in find_values(text):
        if expect == "time":
            times = [(k, v) for k, v in value.readings() if k == "time"]
            if times:
                out.append(Value("time", times[0][1], value.start, value.end, value.text, alts=tuple(times[1:])))
                continue
            if value.kind == "number" and not value.money and value.value == int(value.value) and 1 <= int(value.value) <= 12:  # type: ignore[arg-type,call-overload]
                if _names_a_thing(text, value):
                    continue
                first, other = _clock(int(value.value), 0, None)  # type: ignore[call-overload]
                out.append(Value("time", first, value.start, value.end, value.text, alts=other))
            continue
        if value.kind not in kinds:
            continue
        if expect in ("money", "amount"):
            if not value.money and _names_a_thing(text, value):
                continue
            out.append(Value("number", value.value, value.start, value.end, value.text, money=True))
            continue
        out.append(value)
    if expect == "date":  # "the 9th" alone answers a question about a day
        for m in re.finditer(r"(?<![A-Za-z0-9])the\s+(?P<d>[12]?\d|3[01])(?:st|nd|rd|th)(?![A-Za-z0-9])", text, re.I):
            if not any(v.start <= m.start() < v.end for v in out):
                out.append(Value("day", (int(m["d"]), None), m.start(), m.end(), m.group(0)))
        out.sort(key=lambda v: v.start)
    return out


def spoken_value(text: str, expect: str) -> Value | None:
    """The first of `spoken_values(text, expect)`, or None."""
    values = spoken_values(text, expect)
    return values[0] if values else None


_NOT_A_THING = frozenset(
    "is works work would will sounds sound please then instead o oclock sharp or and but if on today tomorrow tonight this next "
    "s for at is's it fine good great ok okay".split()
)


def _names_a_thing(text: str, value: Value) -> bool:
    """A number followed by a noun it counts ("2 people", "three nights"): no time and no amount."""
    after = re.match(r"\s*([A-Za-z][A-Za-z']*)", text[value.end :])
    if after is None:
        return False
    word = after.group(1).lower().replace("'", "")
    return word not in _NOT_A_THING and word not in FUNCTIONISH and not word.startswith(("am", "pm"))


FUNCTIONISH = frozenset("a an the to of in with by from my your our me you we i it that".split())


# ---- an id written another way (round 2) ---------------------------------------------------------------------

_ID_PARTS = re.compile(r"(?P<prefix>[A-Za-z]{2,})-(?P<digits>\d{3,})")
_ID_LOOSE = r"(?<![A-Za-z0-9\-])(?P<words>[A-Za-z]+(?:[ \-][A-Za-z]+)?)(?:[ \t]*(?:#|no\.|number)?[ \t]*|-?)(?P<digits>{digits})(?![A-Za-z0-9]|-\d|[.,]\d)"
_NOT_ID_WORDS = frozenset("a an the of to for in on at by from and or is was are be been your our my its with as than about".split())


def _prefix_named(prefix: str, words: list[str]) -> bool:
    """Whether the words name an id's prefix: the prefix itself ("INC 2005", "inc#2005"), the initials of
    two words ("work order" for WO, "configuration item" for CI), or a word that begins with the prefix's
    first letter and holds its letters in order ("incident" for INC, "request" for REQ, "change" for CHG,
    "dispute" for DSP)."""
    prefix = prefix.lower()
    words = [w.lower() for w in words if w.lower() not in _NOT_ID_WORDS]
    if not words:
        return False
    if words[-1] == prefix or "".join(words) == prefix:
        return True
    if len(words) == 2 and words[0][0] + words[1][0] == prefix:
        return True
    word = words[-1]
    if len(word) < len(prefix) + 1 or word[0] != prefix[0]:
        return False
    at = 0
    for ch in prefix:
        at = word.find(ch, at)
        if at == -1:
            return False
        at += 1
    return True


# ---- r6-words: a long code written in groups -------------------------------------------------------------------

_LONG_CODE = re.compile(r"(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{8,}")
"""A code of 8 or more letters and digits with no separator (a tracking number, a card or account reference):
the same code when written in groups ("1Z 999 AA1 0123 456 784", "1Z-999-AA1-...")."""


@lru_cache(maxsize=2048)
def grouped_code(code: str) -> re.Pattern[str] | None:
    """The code's characters in order with at most one space, no-break space or hyphen between any two, whole
    (no letter or digit on either side); None for anything but a long code (`_LONG_CODE`). Every character is
    the code's own: one digit off is no match."""
    if not _LONG_CODE.fullmatch(code):
        return None
    return re.compile(
        r"(?<![A-Za-z0-9])" + r"[ \u00a0\-\u2011]?".join(re.escape(ch) for ch in code) + r"(?![A-Za-z0-9]|[ \-]\d)", re.I
    )


_LOCATOR = re.compile(r"[A-Za-z]{2,}-(?P<body>(?=[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{5,})")
"""r9-words: an id whose body mixes letters and digits (a booking locator ``PNR-R4T8VX``): the body alone names it
("your booking R4T8VX"), being a code no word or number spells."""


@lru_cache(maxsize=512)
def _locator_body(body: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9\-])" + re.escape(body) + r"(?![A-Za-z0-9]|-[A-Za-z0-9])", re.I)


def id_mentions(target: str, text: str) -> list[Value]:
    """Where the id `target` (``WO-5003``) is written another way in `text`: its prefix and digits with a
    space, ``#``, ``no.`` or nothing between (``INC 2005``, ``REQ5003``, ``CI #3004``), or the words the
    prefix stands for before its digits (``work order 5003``, ``incident 2004``, ``request #5003``). The
    digits must be the id's own, whole; another prefix or a noun of another kind before them is no match."""
    if (grouped := grouped_code(target.strip())) is not None:  # r6-words: "1Z 999 AA1 0123 456 784"
        found = [Value("id", target.upper(), g.start(), g.end(), g.group(0)) for g in grouped.finditer(text)]
        if found:
            return found
    if (body := _LOCATOR.fullmatch(target.strip())) is not None:  # r9-words: "R4T8VX" for PNR-R4T8VX
        return [Value("id", target.upper(), g.start(), g.end(), g.group(0)) for g in _locator_body(body["body"]).finditer(text)]
    m = _ID_PARTS.fullmatch(target.strip())
    if m is None:
        return []
    out = []
    for hit in rx(_ID_LOOSE.format(digits=m["digits"])).finditer(text):
        words = re.split(r"[ \-]", hit["words"])
        for n in (2, 1):  # "work order 5003", then "order 5003"
            if len(words) >= n and _prefix_named(m["prefix"], words[-n:]):
                start = hit.start("words") if n == len(words) else hit.start("words") + len(" ".join(words[:-n])) + 1
                out.append(Value("id", target.upper(), start, hit.end(), text[start : hit.end()]))
                break
    return out


# ---- durations (round 2) ---------------------------------------------------------------------------------------

DURATION_UNITS = {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600, "h": 3600, "day": 86400, "week": 604800}
"""Time units a duration is counted in, in seconds (a count phrase of one of these matches the same span of
time in another unit or in fraction words: "30 seconds" = "half a minute", "90 minutes" = "an hour and a half")."""
_UNIT = r"(?P<u>seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?)\b"
_FRACTION_DURATIONS = (
    (re.compile(r"\bhalf[\s-]+(?:an?\s+)?" + _UNIT, re.I), Decimal("0.5")),  # r7-words: "a half-minute"
    # r7-words: "after the first day", "within the first hour": the first unit of a span is one unit, after a word of time
    (re.compile(r"\b(?:after|within|past|beyond|outside(?:\s+of)?|during|inside(?:\s+of)?)\s+the\s+first\s+(?=(?:day|hour|week|minute)\b)" + _UNIT + r"(?!\s+of\b)", re.I), Decimal(1)),
    (re.compile(r"\b(?:an?|one)\s+" + _UNIT + r"\s+and\s+a\s+half\b", re.I), Decimal("1.5")),
    (re.compile(r"\b(?:a\s+)?quarter(?:\s+of)?\s+(?:an?\s+)?" + _UNIT, re.I), Decimal("0.25")),
    (re.compile(r"\bthree[\s-]quarters\s+of\s+(?:an?\s+)?" + _UNIT, re.I), Decimal("0.75")),
    (re.compile(r"(?<![A-Za-z])(?:an?)\s+" + _UNIT + r"(?!\s+and\s+a\s+half)", re.I), Decimal(1)),
)


_ABBREVIATED_UNIT = re.compile(r"\s?(?P<u>hours?|minutes?|h|hrs?|mins?|secs?)(?![A-Za-z0-9]|[.:]\d)(?P<half>)(?P<half2>)", re.I)
"""r9-words: a time unit written short, closed up to its number or after one space ("24h", "48hrs", "30min",
"24 h"); never before a digit ("16h10" is a clock time)."""


class _Shifted:
    """A match of `_ABBREVIATED_UNIT` read like the spelled-out unit's match (its end counted from the number's end)."""

    def __init__(self, m: re.Match[str], base: int) -> None:
        self._m, self._base = m, base

    def __getitem__(self, key: str) -> str | None:
        return self._m[key] or None

    def end(self) -> int:
        return self._m.end() - self._base


def unit_seconds(word: str) -> int | None:
    """Seconds in a time unit word ("minutes" -> 60), None for another word."""
    word = word.lower().rstrip("s") if word.lower() not in ("s",) else word
    return DURATION_UNITS.get(word)


def durations(text: str) -> list[tuple[Decimal, int, int]]:
    """Spans of time stated in `text` as (seconds, start, end): a number and a time unit ("30 seconds",
    "thirty-second", "2.5 hours", "5 and a half minutes") and fraction words ("half a minute", "an hour and a
    half", "a quarter of an hour", "an hour")."""
    out: list[tuple[Decimal, int, int]] = []
    taken: list[tuple[int, int]] = []
    for value in find_values(text):
        if value.kind != "number":
            continue
        m = re.match(r"(?P<half>\s+and\s+a\s+half)?[\s-]+" + _UNIT + r"(?P<half2>\s+and\s+a\s+half)?", text[value.end :], re.I)
        if m is None:
            m = _ABBREVIATED_UNIT.match(text, value.end)  # r9-words: "24h", "48hrs", "30 min", "24 h"
            if m is None:
                continue
            m = _Shifted(m, value.end)
        seconds = unit_seconds(m["u"])
        if seconds is None:
            continue
        amount = Decimal(str(value.value)) + (Decimal("0.5") if m["half"] or m["half2"] else 0)
        out.append((amount * seconds, value.start, value.end + m.end()))
        taken.append((value.start, value.end + m.end()))
    for regex, amount in _FRACTION_DURATIONS:
        for m in regex.finditer(text):
            seconds = unit_seconds(m["u"])
            if seconds is not None and not _overlaps(taken, m.start(), m.end()):
                out.append((amount * seconds, m.start(), m.end()))
                taken.append((m.start(), m.end()))
    return sorted(out, key=lambda d: d[1])
