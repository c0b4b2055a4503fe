"""The offline reply judge's text rules, one job per module, calls in one direction (issue 40):

    values, lexicon, statuswords  (no imports inside the package)
        -> units      sentences, negation, predicates, keyword lines / lists / dumps
        -> matching   where an evidence phrase is stated (values, counts, lexicon forms, stems)
        -> conflicts  another value or status for the same fact of the same subject
        -> withdrawal later statements that take the facts back (retractions, negated framings, questions)
        -> evidence   the EvidenceJudge, which applies them in that order

Nothing is done at import time (the lexicon and the status vocabularies load on first use).
"""
