"""Exercise 10: the translator at work. BLEU, the score chapter 10 reports (its section "How BLEU is computed"):
computed by hand on tokens and compared with sacreBLEU. Then rescoring n-best lists with the length penalty, and
the penalty's alpha chosen on a validation split, as chapter 10 does for the shipped model.

The n-best lists are small and synthetic, so that every question runs in a blink: six sentences per split, four
finished hypotheses each (cut short, a word missing, right, with words added), with log-probabilities that
favour short outputs as a real model's do. `VAL` and `TEST` are what the exercise's setup cell imports."""

import math

from ..checks import Miss, check_choices, check_number, question
from ..learner import need
from .translation_cases import (  # noqa: F401
    ALPHAS,
    BLEU_CASES,
    CHOOSE_CASES,
    PICK_CASES,
    TEST,
    VAL,
    best_hypothesis,
    bleu_by_alpha,
    bleu_facts,
    choice_facts,
    chosen,
    nbest_table,
    sacre_bleu,
    shuffled,
)

NOTEBOOK = "10_translation"

QUESTIONS = []


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


@question(QUESTIONS, 3, 2, "what sacreBLEU's BLEU notices")
def q3(ns):
    check_choices(ns, "answer_q3", correct=bleu_facts(), options="abcde")


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
