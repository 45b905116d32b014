"""Exercise 9: German to English on Multi30k. The vocabulary built from the training split, and BLEU: computed
by hand on tokens and compared with sacreBLEU, the library chapter 9 scores with."""
import math

import sacrebleu

from transformer.data import SPECIALS, Vocab
from ..checks import Miss, check_choices, check_number, need, question

NOTEBOOK = "09_multi30k"
QUESTIONS = []


# ---------------------------------------------------------------- 1: the vocabulary
VOCAB_CASES = [  # (token lists, min_freq, what the case is about)
    ([["a", "man", "rides", "a", "bike", "."], ["a", "dog", "runs", "."], ["two", "men", "."]], 2,
     "three tokenized sentences, min_freq=2"),
    ([["b", "a", "c"], ["c", "a", "b"], ["d"]], 1, "ties: counts equal, alphabetical order, min_freq=1"),
    ([["<unk>", "x", "x"], ["<pad>", "<unk>", "y"]], 1, "special tokens in the text are not added twice"),
    ([["Zaun", "zaun", "Äpfel", "apfel", "Zaun", "zaun"], ["apfel", "Äpfel"]], 2,
     "capitals and umlauts: ties in code-point order, as sorted() puts them"),
    ([["rare", "words", "only"]], 2, "no token reaches min_freq: only the special tokens"),
    ([], 2, "an empty corpus"),
]


@question(QUESTIONS, 1, 2, "build_vocab", forbid=["transformer.data.Vocab"])
def q1(ns):
    f = need(ns, "build_vocab", "function")
    for tokens, min_freq, case in VOCAB_CASES:
        want = Vocab.build(tokens, min_freq=min_freq).itos
        got = f([list(t) for t in tokens], min_freq)
        if not isinstance(got, list) or not all(isinstance(t, str) for t in got):
            raise Miss(f"`build_vocab` does not return a list of strings ({case})", f"Got {type(got).__name__}.")
        if got[:len(SPECIALS)] != list(SPECIALS):
            raise Miss(f"the vocabulary does not start with the special tokens ({case})",
                       f"Its first entries are {got[:4]}; ids 0 to 3 are {list(SPECIALS)}.")
        if got != want:
            extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
            detail = (f"tokens that should not be there: {extra[:5]}; missing: {missing[:5]}" if extra or missing
                      else f"the same tokens in another order: expected {want[4:12]}, got {got[4:12]}")
            raise Miss(f"wrong vocabulary ({case})", f"build_vocab({tokens}, min_freq={min_freq}): {detail}.")


# ---------------------------------------------------------------- 2: corpus BLEU by hand
BLEU_CASES = [  # (hypotheses, references, what the case is about)
    (["a man rides a bike down the street ."], ["a man rides a bike down the street ."], "a perfect match"),
    (["a man is riding a bike down the street ."], ["a man rides a bike down the street ."],
     "one sentence, longer than its reference"),
    (["a man rides a bike on the street"], ["a man rides a bike down the street ."],
     "one sentence, shorter than its reference: the brevity penalty"),
    (["the cat the cat is on the mat ."], ["the cat is on the mat ."],
     "clipping: 'the' and 'the cat' count at most as often as in the reference"),
    (["two dogs play in the snow .", "a girl climbs into a playhouse .", "men in hard hats work ."],
     ["two dogs play in the snow near a fence .", "a little girl climbs into a wooden playhouse .",
      "several men in hard hats operate a machine ."],
     "three sentences: counts are summed over the corpus, not averaged over sentences"),
    (["a dog runs", "a man sits on a bench in the park ."], ["a dog runs fast", "a man sits on a bench ."],
     "the lengths are summed over the corpus before the brevity penalty"),
    (["dogs run on grass"], ["a dog is running on the grass ."], "no 4-gram in common: BLEU is 0"),
]


def sacre_bleu(hypotheses, references):
    "Corpus BLEU-4 on the given tokens (split at spaces), no smoothing: sacreBLEU's computation."
    bleu = sacrebleu.metrics.BLEU(tokenize="none", smooth_method="none", force=True)
    return bleu.corpus_score(list(hypotheses), [list(references)]).score


@question(QUESTIONS, 2, 3, "corpus_bleu", forbid=["sacrebleu.corpus_bleu", "sacrebleu.sentence_bleu",
                                                  "sacrebleu.metrics.BLEU", "sacrebleu.BLEU"])
def q2(ns):
    f = need(ns, "corpus_bleu", "function")
    for hyps, refs, case in BLEU_CASES:
        want = sacre_bleu(hyps, refs)
        got = f(list(hyps), list(refs))
        try:
            got = float(got)
        except (TypeError, ValueError):
            raise Miss(f"`corpus_bleu` does not return a number ({case})", f"Got a {type(got).__name__}.") from None
        if not math.isfinite(got) or abs(got - want) > 1e-6 * max(1.0, want):
            direction = "too large" if got > want else "too small"
            raise Miss(f"wrong BLEU ({case})", f"corpus_bleu({hyps}, {refs}): {got:.4g} is {direction}.")


# ---------------------------------------------------------------- 3: one sentence by hand
@question(QUESTIONS, 3, 1, "BLEU of one sentence by hand")
def q3(ns):
    check_number(ns, "answer_q3", sacre_bleu(["a man rides a bike on the street"],
                                             ["a man rides a bike down the street ."]), rel=1e-3)


# ---------------------------------------------------------------- 4: what sacreBLEU's BLEU notices
def bleu_facts():
    "The letters of question 4's true statements, decided by running sacreBLEU's default BLEU."
    ref = ["A man rides a red bike down the street."]
    score = lambda hyps, refs=ref: sacrebleu.corpus_bleu(hyps, [refs]).score
    hyp = "A man rides a bike down the street."
    sentences = (["A dog runs on the grass.", "Two men sit on a bench in a park."],
                 ["A dog is running on the grass.", "Two men are sitting on a bench."])
    holds = {
        "a": abs(score([hyp.lower()]) - score([hyp])) > 1e-9,
        "b": abs(score(["A man rides a bike down the street ."]) - score([hyp])) > 1e-9,
        "c": abs(score(*sentences) - sum(score([h], [r]) for h, r in zip(*sentences)) / 2) < 1e-9,
        "d": sacrebleu.corpus_bleu(["A man rides a red bike down the street very fast."], [ref]).bp < 1,
        "e": sacrebleu.corpus_bleu(["street street street street."], [["the street."]]).precisions[0] < 50,
    }
    return "".join(letter for letter, true in holds.items() if true)


@question(QUESTIONS, 4, 2, "what sacreBLEU's BLEU notices")
def q4(ns):
    check_choices(ns, "answer_q4", correct=bleu_facts(), options="abcde")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: ('Count the tokens with a Counter, drop the special tokens and those seen fewer than min_freq times, '
        'and sort with key=lambda t: (-counts[t], t); put the four special tokens first.'),
    2: ("For n = 1..4 sum, over the sentences, the clipped matches (min of the hypothesis's and the "
        "reference's count of each n-gram) and the number of hypothesis n-grams. Sum the lengths too: BP = "
        'exp(1 - r/c) when c < r. BLEU = 100 * BP * the geometric mean of the four precisions.'),
    3: ('Write the 1- to 4-grams of the hypothesis, count which ones the reference has, then apply the '
        'brevity penalty: 8 hypothesis tokens against 9. Check with your corpus_bleu on one sentence.'),
    4: ('Try each statement with sacrebleu.corpus_bleu and its default settings (the 13a tokenizer, '
        'case-sensitive): one pair of scores settles each.'),
}
