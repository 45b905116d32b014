"""Exercise 9: the data, Multi30k. The word vocabulary built from the training split, the ids a sentence becomes,
the <unk> rate and why the vocabulary comes from the training split only, and what the tokenizer, the vocabulary
and the `Pipeline` protocol guarantee. Every answer is compared with chapter 9's own code (`transformer.data`).

`TRAIN` and `TEST` are a tiny tokenized corpus, small enough to work through by hand; the exercise's setup cell
imports them."""

from transformer.data import SPECIALS, Pipeline, Tokenizer, Vocab, unk_rate, with_eos

from ..checks import Miss, check_choices, check_number, question
from ..learner import need

NOTEBOOK = "09_multi30k"
QUESTIONS = []


# ---------------------------------------------------------------- 1: the vocabulary
VOCAB_CASES = [  # (token lists, min_freq, what the case is about)
    (
        [["a", "man", "rides", "a", "bike", "."], ["a", "dog", "runs", "."], ["two", "men", "."]],
        2,
        "three tokenized sentences, min_freq=2",
    ),
    ([["b", "a", "c"], ["c", "a", "b"], ["d"]], 1, "ties: counts equal, alphabetical order, min_freq=1"),
    ([["<unk>", "x", "x"], ["<pad>", "<unk>", "y"]], 1, "special tokens in the text are not added twice"),
    (
        [["Zaun", "zaun", "Äpfel", "apfel", "Zaun", "zaun"], ["apfel", "Äpfel"]],
        2,
        "capitals and umlauts: ties in code-point order, as sorted() puts them",
    ),
    ([["rare", "words", "only"]], 2, "no token reaches min_freq: only the special tokens"),
    ([], 2, "an empty corpus"),
    (
        [["a", "man", "rides", "a", "bike", "."], ["a", "dog", "runs", "."], ["two", "men", "."]],
        None,
        "three tokenized sentences, min_freq not given: the default the question states",
    ),
]


@question(QUESTIONS, 1, 2, "build_vocab", forbid=["transformer.data.Vocab"])
def q1(ns):
    f = need(ns, "build_vocab", "function")
    for tokens, min_freq, case in VOCAB_CASES:
        given = () if min_freq is None else (min_freq,)  # None: the learner's default is used
        want = Vocab.build(tokens, *given).itos
        got = f([list(t) for t in tokens], *given)
        if not isinstance(got, list) or not all(isinstance(t, str) for t in got):
            raise Miss(f"`build_vocab` does not return a list of strings ({case})", f"Got {type(got).__name__}.")
        if got[: len(SPECIALS)] != list(SPECIALS):
            raise Miss(
                f"the vocabulary does not start with the special tokens ({case})",
                f"Its first entries are {got[:4]}; ids 0 to 3 are {list(SPECIALS)}.",
            )
        if got != want:
            extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
            detail = (
                f"tokens that should not be there: {extra[:5]}; missing: {missing[:5]}"
                if extra or missing
                else f"the same tokens in another order: expected {want[4:12]}, got {got[4:12]}"
            )
            call = f"build_vocab({tokens}" + ("" if min_freq is None else f", min_freq={min_freq}") + ")"
            raise Miss(f"wrong vocabulary ({case})", f"{call}: {detail}.")


# ---------------------------------------------------------------- the tiny corpus of questions 2 to 4
TRAIN = [
    s.split()
    for s in (
        "a man rides a bike .",
        "a dog runs on the grass .",
        "two men ride bikes .",
        "a dog sits on a bench .",
        "the man sits on the grass .",
    )
]
TEST = [s.split() for s in ("a man sits on a bench .", "two dogs run on the grass near a bench .")]
SENTENCE = "the dog rides on a bike .".split()  # question 2's sentence
LIMIT = 6  # question 2's limit on the source ids


# ---------------------------------------------------------------- 2: the ids of a sentence
def source_ids():
    "Question 2: SENTENCE as the encoder reads it, with the vocabulary of TRAIN at min_freq=2, cut to LIMIT ids."
    return with_eos(Vocab.build(TRAIN, min_freq=2).ids(SENTENCE), limit=LIMIT)


@question(QUESTIONS, 2, 2, "the ids the encoder reads")
def q2(ns):
    got, want = ns.get("answer_q2"), source_ids()
    if got is None:
        raise Miss("not answered yet", "Set `answer_q2` to a list of ids.")
    if not isinstance(got, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in got):
        raise Miss("`answer_q2` is not a list of ints", f"Got {got!r:.80}.")
    if len(got) != len(want):
        raise Miss(
            "wrong number of ids",
            f"{len(got)} ids is {'too many' if len(got) > len(want) else 'too few'}: how many does `limit` allow, "
            "<eos> included?",
        )
    wrong = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    if wrong:
        raise Miss(
            "wrong ids",
            f"{len(wrong)} of the {len(want)} ids are wrong, the first at position {wrong[0]}: check the order of "
            "the vocabulary (counts, then ties), the id of a word it lacks and where <eos> goes.",
        )


# ---------------------------------------------------------------- 3: the <unk> rate, and the leak
def unk_rates():
    "Question 3: (TEST's <unk> rate with the vocabulary of TRAIN, with the vocabulary of TRAIN + TEST), min_freq=2."
    return unk_rate(Vocab.build(TRAIN, 2), TEST), unk_rate(Vocab.build(TRAIN + TEST, 2), TEST)


@question(QUESTIONS, 3, 2, "the <unk> rate, and the leak")
def q3(ns):
    got = ns.get("answer_q3")
    if got is None:
        raise Miss("not answered yet", "Set `answer_q3` to a pair of numbers, (from TRAIN, from TRAIN + TEST).")
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Miss("`answer_q3` is not a pair of numbers", f"Got {got!r:.80}.")
    for value, want, name in zip(got, unk_rates(), ("answer_q3[0]", "answer_q3[1]")):
        check_number({name: value}, name, want, rel=1e-6, abs_tol=1e-9)


# ---------------------------------------------------------------- 4: what the data pipeline guarantees
class _NamesOnly:
    "Every name of the Pipeline protocol, with methods that take none of the arguments it lists."

    langs, shared, out_vocab = ("de", "en"), False, None
    sizes = property(lambda self: (0, 0))
    source_ids = target_ids = source_pieces = target_pieces = sentence = unseen = state = lambda self: None


def pipeline_facts():
    "The letters of question 4's true statements, decided by running chapter 9's code."
    en = Tokenizer("en")
    odd = "  A man's  red hat (top-hat) . "
    vocab = Vocab.build(TRAIN, 2)
    ids = vocab.ids(SENTENCE)
    holds = {
        "a": Tokenizer.detokenize(en(odd)) == odd,
        "b": vocab.tokens(ids) == SENTENCE,
        "c": vocab.tokens([vocab.bos_id, vocab.unk_id, vocab.pad_id]) == [],
        "d": all(
            len(with_eos(list(range(4, 4 + n)), limit=5)) <= 5 and with_eos(list(range(4, 4 + n)), 5)[-1] == 3
            for n in range(0, 9)
        ),
        "e": isinstance(_NamesOnly(), Pipeline),
    }
    return "".join(letter for letter, true in holds.items() if true)


@question(QUESTIONS, 4, 2, "what the tokenizer, the vocabulary and Pipeline guarantee")
def q4(ns):
    check_choices(ns, "answer_q4", correct=pipeline_facts(), options="abcde")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "Count the tokens with a Counter, drop the special tokens and those seen fewer than min_freq times, "
        "and sort with key=lambda t: (-counts[t], t); put the four special tokens first."
    ),
    2: (
        "Count every token of TRAIN with pencil and paper, keep those seen twice or more, and order them as "
        "Vocab.build does: ids 0 to 3 are the special tokens, then the most frequent, ties in the order of "
        "sorted(). A word the vocabulary lacks gets <unk>'s id. Then read with_eos: how many ids does limit "
        "leave, <eos> included? Check with Vocab.build and with_eos."
    ),
    3: (
        "Build the two vocabularies with Vocab.build(..., min_freq=2) and measure TEST with unk_rate: a share of "
        "all of TEST's tokens, not a mean over sentences. Which of TEST's words reach min_freq only when TEST "
        "is counted too?"
    ),
    4: (
        "Try each statement with chapter 9's code: Tokenizer('en') and Tokenizer.detokenize, Vocab.build(TRAIN) "
        "with ids and tokens, with_eos on lists of several lengths, and isinstance on a class of your own."
    ),
}
