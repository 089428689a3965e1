"""Teaching: mystery labs, a lab variant whose planted fault is hidden from the student who runs it.

One module a job, each importing only those listed before it:

    sealing   the cipher, signatures and the deterministic draw
    spec      the mystery spec of a lab (book.toml `[labs.X.mystery]`) and its variant space
    variant   who gets which variant, the sealed variant file, and the run side of a mystery run
              (planted parameters masked in run.json, answer-giving metrics and raw files sealed,
              what the run measured signed)
    student   what a student notebook calls (its session, the signing last cell, neutral figures)
    assign    a class's packages and the answer key (`perflab assign`)
    grade     marking submissions against the key (`perflab grade`)
    gradebook grades in the formats instructors keep (Canvas, Gradescope, CSV) and the item analysis
    classplan a class's time budget from measured run times (data/timings/class.json)

The spec, as data in book.toml (adding a mystery needs no teaching code: a thin student notebook, and in the lab a parameter for the hidden cause if it has none):

    [labs.bad-cable.mystery]
    notebook = "chapters/mystery/bad-cable.md"   # the student notebook (MyST), copied into each package
    preset = "smoke"                              # every variant runs this preset ...
    fixed = { clients = 4 }                       # ... with these values, the same for every student
    sealed_metrics = ["detected_outlier", ...]    # run.json metrics that would reveal the answer
    scrub = ["timeline.json:bad_client", "timeline.json:clients.*.mbit_bad"]  # raw-file fields sealed after the run
                                                  # (FILE alone: the whole file, e.g. "device/iostat.txt")
    [labs.bad-cable.mystery.hidden.bad_client]    # one table per hidden parameter
    draw = "choice"                               # choice (one of values) | subset (k of values) | bool
    values = [1, 2, 3, 4]
    [[labs.bad-cable.mystery.questions]]
    id = "bad_client"; ask = "..."; type = "int"  # int | float | str | path | bool | intlist
    truth = "param:bad_client"                    # the planted value, or "metric:NAME" (what the run measured)
    evidence = "metric:detected_outlier"          # optional: the run metric that backs the answer
    tolerance = 0.15                              # floats: relative tolerance; points = 1 by default

Determinism. Every draw is HMAC-SHA256 keyed by the instructor's seed over "purpose|lab|student"
(UTF-8), read as a big-endian integer: the same on every machine and Python version (no `random`,
no `hash()`). The variant space is the product of the hidden parameters' candidates, in a fixed
order (values as listed; subsets as itertools.combinations of the listed values; bool False, True).
A student's preferred variant is draw("variant") modulo the size of the space. Students are taken
in roster order; one whose preferred variant is already taken in this round gets the next free one
(wrapping), so a class no larger than the space gets distinct variants, and appending students to
a roster never changes the variants of those already on it. A class larger than the space is
served in rounds: once every variant is taken, the next student starts a new round, so each variant
is used at most ceil(class / space) times (assign says so). Students sharing a variant still have
their own signing keys and variant ids, so one cannot hand in another's run.

Hiding, honestly. Sealed text is a keyed stream cipher (HMAC-SHA256 in counter mode) with an
authentication tag; its key derives from a constant in this file and the lab name. It keeps the
planted values out of plain sight (variant file, run.json, notebook, raw files the lab writes), and
it detects edits; it is not secrecy: a student who reads this code can unseal their own variant.
The grade's integrity check is of the same kind: the signing key travels, sealed, with the variant.
What is *not* hidden: the evidence itself (the per-client counters are the point of the exercise),
and structure a lab's raw files may show (the elinks lab writes its tracing files only under the
buggy desktop's directory).
"""
