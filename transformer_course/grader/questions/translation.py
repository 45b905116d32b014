"""Exercise 10: the translator at work. BLEU, the score chapter 10 reports (its section "How BLEU is computed"):
computed by hand on tokens and compared with sacreBLEU. Then rescoring n-best lists with the length penalty, and
the penalty's alpha chosen on a validation split, as chapter 10 does for the shipped model.

The n-best lists are small and synthetic, so that every question runs in a blink: six sentences per split, four
finished hypotheses each (cut short, a word missing, right, with words added), with log-probabilities that
favour short outputs as a real model's do. `VAL` and `TEST` are what the exercise's setup cell imports."""

import math

import sacrebleu

from transformer.generation import length_penalty

from ..checks import Miss, check_choices, check_number, question
from ..learner import need

NOTEBOOK = "10_translation"
QUESTIONS = []
ALPHAS = (0.0, 0.3, 0.6, 1.0, 1.5, 2.0)


def nbest_table(references, seed, costs=(1.2, 0.9, 0.9, 1.0)):
    """[(hypotheses, reference)]: for each reference four hypotheses (text, log-probability): cut short, a word
    missing, the reference itself, and the reference with three words added. About -0.2 nats a token, an extra
    cost per kind, and a little deterministic noise."""
    table = []
    for i, ref in enumerate(references):
        w = ref.split()
        kinds = [w[: len(w) - 4] + ["."], w[:2] + w[3:], w, w[:-1] + ["with", "a", "dog", "."]]
        hyps = [
            (
                " ".join(words),
                round(-0.2 * (len(words) + 1) - costs[j] - 0.15 * ((7 * i + 3 * j + seed) % 5), 2),
            )
            for j, words in enumerate(kinds)
        ]
        table.append((hyps, ref))
    return table


VAL = nbest_table(
    [
        "a man rides a red bike down the street .",
        "two dogs play in the snow near a wooden fence .",
        "a girl in a pink dress climbs into a wooden playhouse .",
        "several men in hard hats operate a large machine .",
        "a woman sells fruit at a market stall .",
        "children are playing soccer on a green field .",
    ],
    seed=0,
)
TEST = nbest_table(
    [
        "a boy jumps off a wooden dock into the lake .",
        "an old man reads a newspaper on a park bench .",
        "three people walk along a sandy beach at sunset .",
        "a chef cooks noodles in a busy kitchen .",
        "a black dog carries a stick through the water .",
        "a crowd watches a band play on a stage .",
    ],
    seed=2,
)


def best_hypothesis(hypotheses, alpha):
    "The text with the best score log P / lp(|Y|), |Y| its words plus <eos>; the first one on a tie."
    scores = [logp / length_penalty(len(text.split()) + 1, alpha) for text, logp in hypotheses]
    return hypotheses[scores.index(max(scores))][0]


def bleu_by_alpha(table, alphas):
    "{alpha: corpus BLEU (sacreBLEU's default) of the best hypotheses at that alpha}."
    refs = [ref for _, ref in table]
    return {a: sacrebleu.corpus_bleu([best_hypothesis(h, a) for h, _ in table], [refs]).score for a in alphas}


def chosen(table, alphas):
    "The alpha with the highest BLEU; the smallest one on a tie."
    scores = bleu_by_alpha(table, alphas)
    return min(alphas, key=lambda a: (-round(scores[a], 9), a))


# ---------------------------------------------------------------- 1: corpus BLEU by hand
BLEU_CASES = [  # (hypotheses, references, what the case is about)
    (["a man rides a bike down the street ."], ["a man rides a bike down the street ."], "a perfect match"),
    (
        ["a man is riding a bike down the street ."],
        ["a man rides a bike down the street ."],
        "one sentence, longer than its reference",
    ),
    (
        ["a man rides a bike on the street"],
        ["a man rides a bike down the street ."],
        "one sentence, shorter than its reference: the brevity penalty",
    ),
    (
        ["the cat the cat is on the mat ."],
        ["the cat is on the mat ."],
        "clipping: 'the' and 'the cat' count at most as often as in the reference",
    ),
    (
        ["two dogs play in the snow .", "a girl climbs into a playhouse .", "men in hard hats work ."],
        [
            "two dogs play in the snow near a fence .",
            "a little girl climbs into a wooden playhouse .",
            "several men in hard hats operate a machine .",
        ],
        "three sentences: counts are summed over the corpus, not averaged over sentences",
    ),
    (
        ["a dog runs", "a man sits on a bench in the park ."],
        ["a dog runs fast", "a man sits on a bench ."],
        "the lengths are summed over the corpus before the brevity penalty",
    ),
    (["dogs run on grass"], ["a dog is running on the grass ."], "no 4-gram in common: BLEU is 0"),
    (
        ["a man sits on a bench .", "a dog runs on the grass ."],
        ["a dog sits on a bench .", "a man runs on the grass ."],
        "each sentence is clipped against its own reference: 'man' and 'dog' occur only in the other sentence's",
    ),
    (
        ["two dogs", "a man sits on a bench in the park ."],
        ["two dogs run", "a man sits on a bench ."],
        "a hypothesis of 2 tokens has no 3- or 4-grams: it adds 0 to those counts, not a negative number",
    ),
    (
        ["dogs", "a man sits on a bench in the park ."],
        ["two dogs run", "a man sits on a bench ."],
        "a hypothesis of 1 token",
    ),
    (
        ["a  man rides a bike\tdown the street .", " two dogs play in the snow . "],
        ["a man rides  a bike down the street .", "two dogs play\nin the snow near a fence ."],
        "tokens separated by two spaces, a tab, a newline, spaces at both ends: str.split() splits at any whitespace",
    ),
]


def sacre_bleu(hypotheses, references):
    "Corpus BLEU-4 on the given tokens (split at spaces), no smoothing: sacreBLEU's computation."
    bleu = sacrebleu.metrics.BLEU(tokenize="none", smooth_method="none", force=True)
    return bleu.corpus_score(list(hypotheses), [list(references)]).score


@question(
    QUESTIONS,
    1,
    3,
    "corpus_bleu",
    forbid=["sacrebleu.corpus_bleu", "sacrebleu.sentence_bleu", "sacrebleu.metrics.BLEU", "sacrebleu.BLEU"],
)
def q1(ns):
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


# ---------------------------------------------------------------- 2: one sentence by hand
@question(QUESTIONS, 2, 1, "BLEU of one sentence by hand")
def q2(ns):
    check_number(
        ns,
        "answer_q2",
        sacre_bleu(["a man rides a bike on the street"], ["a man rides a bike down the street ."]),
        rel=1e-3,
    )


# ---------------------------------------------------------------- 3: what sacreBLEU's BLEU notices
def bleu_facts():
    "The letters of question 3's true statements, decided by running sacreBLEU's default BLEU."
    ref = ["A man rides a red bike down the street."]
    score = lambda hyps, refs=ref: sacrebleu.corpus_bleu(hyps, [refs]).score
    hyp = "A man rides a bike down the street."
    sentences = (
        ["A dog runs on the grass.", "Two men sit on a bench in a park."],
        ["A dog is running on the grass.", "Two men are sitting on a bench."],
    )
    holds = {
        "a": abs(score([hyp.lower()]) - score([hyp])) > 1e-9,
        "b": abs(score(["A man rides a bike down the street ."]) - score([hyp])) > 1e-9,
        "c": abs(score(*sentences) - sum(score([h], [r]) for h, r in zip(*sentences)) / 2) < 1e-9,
        "d": sacrebleu.corpus_bleu(["A man rides a red bike down the street very fast."], [ref]).bp < 1,
        "e": sacrebleu.corpus_bleu(["street street street street."], [["the street."]]).precisions[0] < 50,
    }
    return "".join(letter for letter, true in holds.items() if true)


@question(QUESTIONS, 3, 2, "what sacreBLEU's BLEU notices")
def q3(ns):
    check_choices(ns, "answer_q3", correct=bleu_facts(), options="abcde")


# ---------------------------------------------------------------- 4: rescore an n-best list
PICK_CASES = [  # (hypotheses, alpha, what the case is about)
    (VAL[0][0], 0.0, "VAL's first sentence, alpha 0: the score is log P itself"),
    (VAL[0][0], 1.0, "VAL's first sentence, alpha 1"),
    (VAL[3][0], 1.5, "VAL's fourth sentence, alpha 1.5"),
    (TEST[2][0], 2.0, "TEST's third sentence, alpha 2"),
    ([("a dog", -1.0), ("a big dog", -1.0)], 0.6, "equal log P: the longer one scores better when alpha > 0"),
    ([("a dog .", -2.0), ("one dog .", -2.0)], 0.6, "a tie: the first hypothesis wins"),
    ([("", -0.5), ("a dog runs .", -2.5)], 0.6, "an empty hypothesis (only <eos>): |Y| = 1"),
    ([("dog", -1.0), ("a big dog", -1.3)], 1.0, "|Y| counts <eos>: 2 and 4 here, and that decides"),
    (
        [("a dog", -1.0), ("a big dog runs", -1.24)],
        1.0,
        "|Y| counts <eos> but not <bos>: 3 and 5 here, and that decides",
    ),
    ([("", -1.0), ("a dog", -1.25)], 1.0, "an empty hypothesis has no words: |Y| = 1, and that decides"),
]


@question(
    QUESTIONS,
    4,
    2,
    "best_hypothesis",
    forbid=["transformer_course.grader.questions.translation.best_hypothesis"],
)
def q4(ns):
    f = need(ns, "best_hypothesis", "function")
    for hyps, alpha, case in PICK_CASES:
        want = best_hypothesis(hyps, alpha)
        got = f([tuple(h) for h in hyps], alpha)
        if got != want:
            raise Miss(
                f"wrong hypothesis ({case})",
                f"best_hypothesis({hyps}, alpha={alpha}): expected {want!r}, got {got!r}.",
            )


# ---------------------------------------------------------------- 5: choose alpha on validation
def shuffled(table, seed):
    "Another table of the same kind: the hypotheses in another order and other log-probabilities."
    import random

    rng = random.Random(seed)
    out = []
    for hyps, ref in table:
        hyps = [(text, round(logp + rng.uniform(-0.6, 0.6), 2)) for text, logp in hyps]
        rng.shuffle(hyps)
        out.append((hyps, ref))
    return out


CHOOSE_CASES = (
    [  # (table, alphas, what the case is about)
        (VAL, ALPHAS, "VAL, the six alphas"),
        (TEST, ALPHAS, "TEST, the six alphas"),
        (VAL, (2.0, 0.6, 1.5), "VAL, alphas (2.0, 0.6, 1.5) in that order"),
        (VAL, (0.0, 0.3, 0.6), "VAL, alphas (0.0, 0.3, 0.6): equal BLEU, the smallest alpha wins"),
        (
            VAL,
            (0.6, 0.0, 0.3),
            "VAL, alphas (0.6, 0.0, 0.3): equal BLEU, the smallest alpha wins, not the first or last listed",
        ),
        (VAL[:1], (0.6,), "one sentence, one alpha"),
    ]
    + [
        (
            shuffled(VAL + TEST, seed),
            ALPHAS,
            f"VAL and TEST shuffled, noisier log-probabilities (seed {seed})",
        )
        for seed in (1, 2, 3)
    ]
)


@question(
    QUESTIONS,
    5,
    3,
    "choose_alpha",
    forbid=[
        "transformer_course.grader.questions.translation.chosen",
        "transformer_course.grader.questions.translation.bleu_by_alpha",
    ],
)
def q5(ns):
    f = need(ns, "choose_alpha", "function")
    for table, alphas, case in CHOOSE_CASES:
        scores = bleu_by_alpha(table, alphas)
        got = f([([tuple(h) for h in hyps], ref) for hyps, ref in table], list(alphas))
        if not isinstance(got, tuple) or len(got) != 2 or not isinstance(got[1], dict):
            raise Miss(f"`choose_alpha` does not return (alpha, {{alpha: BLEU}}) ({case})", f"Got {got!r:.80}.")
        alpha, bleu = got
        if sorted(bleu) != sorted(alphas):
            raise Miss(f"the BLEU dict does not have one entry per alpha ({case})", f"Its keys: {sorted(bleu)}.")
        for a in alphas:
            if abs(float(bleu[a]) - scores[a]) > 1e-6:
                raise Miss(
                    f"wrong BLEU at alpha {a} ({case})",
                    f"{float(bleu[a]):.4g} is {'too large' if bleu[a] > scores[a] else 'too small'}: pick the "
                    "best hypothesis of every sentence at that alpha, then score the corpus with "
                    "sacrebleu.corpus_bleu(hypotheses, [references]).",
                )
        if alpha != chosen(table, alphas):
            raise Miss(
                f"not the alpha with the best BLEU ({case})",
                f"You chose {alpha}; take the highest BLEU, and the smallest alpha when several tie.",
            )


# ---------------------------------------------------------------- 6: the choice
@question(QUESTIONS, 6, 1, "the alpha validation chooses")
def q6(ns):
    check_number(ns, "answer_q6", chosen(VAL, ALPHAS), rel=1e-6, abs_tol=1e-9)


# ---------------------------------------------------------------- 7: what the choice tells
def choice_facts():
    "The letters of question 7's true statements, decided on VAL and TEST."
    val, test = bleu_by_alpha(VAL, ALPHAS), bleu_by_alpha(TEST, ALPHAS)
    words = [sum(len(best_hypothesis(h, a).split()) for h, _ in VAL) for a in ALPHAS]
    picks = {a: [best_hypothesis(h, a) for h, _ in VAL] for a in ALPHAS}
    holds = {
        "a": all(x <= y for x, y in zip(words, words[1:])),
        "b": max(ALPHAS, key=lambda a: val[a]) == 0.6,
        "c": max(test.values()) - test[chosen(VAL, ALPHAS)] < 1e-9,
        "d": all(len(p.split()) < len(r.split()) for p, (_, r) in zip(picks[0.0], VAL)),
        "e": picks[0.0] == picks[0.3] == picks[0.6],
    }
    return "".join(letter for letter, true in holds.items() if true)


@question(QUESTIONS, 7, 2, "what the choice on validation tells")
def q7(ns):
    check_choices(ns, "answer_q7", correct=choice_facts(), options="abcde")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: (
        "For n = 1..4 sum, over the sentences, the clipped matches (min of the hypothesis's and the reference's "
        "count of each n-gram) and the number of hypothesis n-grams. Sum the lengths too: BP = exp(1 - r/c) when "
        "c < r. BLEU = 100 * BP * the geometric mean of the four precisions."
    ),
    2: (
        "Write the 1- to 4-grams of the hypothesis, count which ones the reference has, then apply the brevity "
        "penalty: 8 hypothesis tokens against 9. Check with your corpus_bleu on one sentence."
    ),
    3: (
        "Try each statement with sacrebleu.corpus_bleu and its default settings (the 13a tokenizer, case-"
        "sensitive): one pair of scores settles each."
    ),
    4: (
        "Score each hypothesis as logp / length_penalty(len(text.split()) + 1, alpha) (the + 1 is <eos>), and "
        "keep the first one with the largest score."
    ),
    5: (
        "For each alpha, take best_hypothesis of every sentence, then sacrebleu.corpus_bleu(hypotheses, "
        "[references]).score. Keep the alpha with the largest BLEU; sort by (-BLEU, alpha) to break ties towards "
        "the smallest alpha."
    ),
    6: "Run your choose_alpha on VAL with ALPHAS and read the alpha it returns.",
    7: (
        "Compute the BLEU of every alpha on VAL and on TEST, and the total number of words your picks have at "
        "each alpha: each statement is one comparison."
    ),
}
