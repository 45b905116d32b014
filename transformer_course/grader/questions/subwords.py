"""Exercise 9.1: sub-words. Byte-pair merges learnt from a word list and applied to new words,
compared with Hugging Face `tokenizers`, the library that section 9.1's `Subwords` wraps.

Every reference below is the library's: its `BpeTrainer` for the merges, its `models.BPE` for the pieces. It
breaks ties the way the exercise asks (section 9.1 checks its readable `learn_bpe` against it merge by merge),
so the merges are compared exactly, in order, ties included. One place where the library departs from the
textbook rule, a merge that makes a symbol an earlier merge already made, never happens on these word lists:
`library_merges` asserts it. The references are learnt when this module is imported, before the questions
are forked."""

from ..checks import Miss, check_choices, question
from ..learner import need
from .subwords_cases import (  # noqa: F401
    BYTE_LEVEL,
    CASES,
    GERMAN,
    MERGES,
    PIECES,
    SEGMENT_CASES,
    SENNRICH,
    SENTENCES,
    explain,
    join,
    library_merges,
    library_pieces,
    merges_of,
    pair_counts,
    random_lists,
    show,
    show_merges,
)

NOTEBOOK = "09_1_subwords"

QUESTIONS = []


# ---------------------------------------------------------------- 1: by hand
@question(QUESTIONS, 1, 1, "the first four merges of Sennrich's words")
def q1(ns):
    got = ns.get("answer_q1")
    if got is None:
        raise Miss("not answered yet", 'Set `answer_q1` to a list of four pairs, e.g. [("a", "b"), ...].')
    got = merges_of(got, "`answer_q1`")
    if len(got) != 4:
        raise Miss(f"`answer_q1` has {len(got)} pairs, not 4", "Give the first four merges, in the order learnt.")
    right = 0
    while right < 4 and got[right] == MERGES[0][right]:
        right += 1
    if right < 4:
        start = (
            f"Your first {right} pairs are right, pair {right + 1} is not"
            if right > 1
            else "Your first pair is right, the second is not"
            if right
            else "Your first pair is not right"
        )
        raise Miss(
            "wrong merges",
            f"{start}. Count the pairs again after the merges before it, weighted by the "
            "words' counts; then check the tie rule.",
        )


@question(
    QUESTIONS,
    2,
    4,
    "learn_bpe",
    forbid=[
        "transformer.subwords.learn_bpe",
        "transformer.subwords.Subwords",
        "tokenizers.trainers.BpeTrainer",
    ],
)
def q2(ns):
    f = need(ns, "learn_bpe", "function")
    for (words, n, case), want in zip(CASES, MERGES):
        got = merges_of(f(dict(words), n), f"what `learn_bpe` returns ({case})")
        if got != want:
            raise Miss(f"wrong merges ({case})", f"learn_bpe({show(words)}, {n}): {explain(words, n, want, got)}")


@question(
    QUESTIONS,
    3,
    2,
    "segment",
    forbid=["transformer.subwords.apply_bpe", "transformer.subwords.Subwords", "tokenizers.models.BPE"],
)
def q3(ns):
    f = need(ns, "segment", "function")
    for (word, merges, case), want in zip(SEGMENT_CASES, PIECES):
        got = f(word, [tuple(m) for m in merges])
        if not isinstance(got, (list, tuple)) or not all(isinstance(p, str) for p in got):
            raise Miss(f"`segment` does not return a list of strings ({case})", f"Got {got!r}.")
        if list(got) != want:
            raise Miss(
                f"wrong pieces ({case})",
                f"segment({word!r}, {show_merges(merges)}): expected {want}, got {list(got)}.",
            )


# ---------------------------------------------------------------- 4: what the rule implies
@question(QUESTIONS, 4, 2, "what the merges depend on")
def q4(ns):
    # (a) doubling every count doubles every pair count: the same maximum, the same ties. (b) learning joins every
    # occurrence of each pair in turn, which is what replaying the merges does to that word. (c) greedy: the first n
    # steps never look at how many follow. (d) false: {"xyzw": 100, "xy": 1} with 2 merges leaves "xyzw" in two pieces
    # ("xy", "zw") and "xy" in one. (e) false: Sennrich's words tie ("e", "s") and ("s", "t") at 9; one more "st" breaks
    # the tie. (f) false: in Sennrich's words "es" is absorbed by "est" at the next merge and is left in no word.
    check_choices(ns, "answer_q4", correct="abc", options="abcdef")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Count the pairs of all four words weighted by their counts, take the largest, merge it everywhere "
        "and count again; in a tie the pair whose left symbol entered the vocabulary first wins."
    ),
    2: (
        "Keep each word as a tuple of symbols in a dict of your own (leave word_counts as it is), recount the "
        "pairs before each merge, break ties by the order in which symbols entered, and stop when no pair is "
        "left."
    ),
    3: "Start from list(word) and apply each merge in turn to every occurrence of its pair, left to right.",
    4: (
        "Try each statement on small word lists with your learn_bpe and segment: one counterexample settles a "
        "false statement."
    ),
}
