"""The offline reply judge's text rules, one job per module, calls in one direction (issue 40):

    values, stemmer, statuswords        (import nothing of the package)
    lexicon    -> stemmer               forms of words: spellings, groups (lexicon.yaml)
    units      -> values                sentences, negation, predicates, keyword lines / lists / dumps, questions
    matching   -> units, values, lexicon   where an evidence phrase is stated (values, counts, forms, stems)
    conflicts  -> matching, units, values, statuswords   another value or status for the same fact of the same subject
    withdrawal -> units                 later statements that take the facts back (retractions, negated framings)
    evidence   -> all of the above, grader.judge (the output types)   the EvidenceJudge

Nothing is done at import time (the lexicon and the status vocabularies load on first use).
"""
