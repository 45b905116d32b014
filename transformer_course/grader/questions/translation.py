"""Exercise 10: the translator at work. Rescoring n-best lists with the length penalty, and the penalty's alpha
chosen on a validation split, as chapter 10 does for the shipped model.

The n-best lists are small and synthetic, so that every question runs in a blink: six sentences per split, four
finished hypotheses each (cut short, a word missing, right, with words added), with log-probabilities that
favour short outputs as a real model's do. `VAL` and `TEST` are what the exercise's setup cell imports."""
import sacrebleu

from transformer.generation import length_penalty
from ..checks import Miss, check_choices, check_number, need, question

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
        kinds = [w[:len(w) - 4] + ["."], w[:2] + w[3:], w, w[:-1] + ["with", "a", "dog", "."]]
        hyps = [(" ".join(words), round(-0.2 * (len(words) + 1) - costs[j] - 0.15 * ((7 * i + 3 * j + seed) % 5), 2))
                for j, words in enumerate(kinds)]
        table.append((hyps, ref))
    return table


VAL = nbest_table(["a man rides a red bike down the street .", "two dogs play in the snow near a wooden fence .",
                   "a girl in a pink dress climbs into a wooden playhouse .",
                   "several men in hard hats operate a large machine .", "a woman sells fruit at a market stall .",
                   "children are playing soccer on a green field ."], seed=0)
TEST = nbest_table(["a boy jumps off a wooden dock into the lake .", "an old man reads a newspaper on a park bench .",
                    "three people walk along a sandy beach at sunset .", "a chef cooks noodles in a busy kitchen .",
                    "a black dog carries a stick through the water .", "a crowd watches a band play on a stage ."],
                   seed=2)


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


# ---------------------------------------------------------------- 1: rescore an n-best list
PICK_CASES = [  # (hypotheses, alpha, what the case is about)
    (VAL[0][0], 0.0, "VAL's first sentence, alpha 0: the score is log P itself"),
    (VAL[0][0], 1.0, "VAL's first sentence, alpha 1"),
    (VAL[3][0], 1.5, "VAL's fourth sentence, alpha 1.5"),
    (TEST[2][0], 2.0, "TEST's third sentence, alpha 2"),
    ([("a dog", -1.0), ("a big dog", -1.0)], 0.6, "equal log P: the longer one scores better when alpha > 0"),
    ([("a dog .", -2.0), ("one dog .", -2.0)], 0.6, "a tie: the first hypothesis wins"),
    ([("", -0.5), ("a dog runs .", -2.5)], 0.6, "an empty hypothesis (only <eos>): |Y| = 1"),
    ([("dog", -1.0), ("a big dog", -1.3)], 1.0, "|Y| counts <eos>: 2 and 4 here, and that decides"),
]


@question(QUESTIONS, 1, 2, "best_hypothesis",
          forbid=["transformer_course.grader.questions.translation.best_hypothesis"])
def q1(ns):
    f = need(ns, "best_hypothesis", "function")
    for hyps, alpha, case in PICK_CASES:
        want = best_hypothesis(hyps, alpha)
        got = f([tuple(h) for h in hyps], alpha)
        if got != want:
            raise Miss(f"wrong hypothesis ({case})", f"best_hypothesis({hyps}, alpha={alpha}): expected {want!r}, "
                                                    f"got {got!r}.")


# ---------------------------------------------------------------- 2: choose alpha on validation
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


CHOOSE_CASES = [  # (table, alphas, what the case is about)
    (VAL, ALPHAS, "VAL, the six alphas"),
    (TEST, ALPHAS, "TEST, the six alphas"),
    (VAL, (2.0, 0.6, 1.5), "VAL, alphas (2.0, 0.6, 1.5) in that order"),
    (VAL, (0.0, 0.3, 0.6), "VAL, alphas (0.0, 0.3, 0.6): equal BLEU, the smallest alpha wins"),
    (VAL[:1], (0.6,), "one sentence, one alpha"),
] + [(shuffled(VAL + TEST, seed), ALPHAS, f"VAL and TEST shuffled, noisier log-probabilities (seed {seed})")
     for seed in (1, 2, 3)]


@question(QUESTIONS, 2, 3, "choose_alpha",
          forbid=["transformer_course.grader.questions.translation.chosen",
                  "transformer_course.grader.questions.translation.bleu_by_alpha"])
def q2(ns):
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
                raise Miss(f"wrong BLEU at alpha {a} ({case})",
                           f"{float(bleu[a]):.4g} is {'too large' if bleu[a] > scores[a] else 'too small'}: pick the "
                           "best hypothesis of every sentence at that alpha, then score the corpus with "
                           "sacrebleu.corpus_bleu(hypotheses, [references]).")
        if alpha != chosen(table, alphas):
            raise Miss(f"not the alpha with the best BLEU ({case})",
                       f"You chose {alpha}; take the highest BLEU, and the smallest alpha when several tie.")


# ---------------------------------------------------------------- 3: the choice
@question(QUESTIONS, 3, 1, "the alpha validation chooses")
def q3(ns):
    check_number(ns, "answer_q3", chosen(VAL, ALPHAS), rel=1e-6, abs_tol=1e-9)


# ---------------------------------------------------------------- 4: what the choice tells
def choice_facts():
    "The letters of question 4's true statements, decided on VAL and TEST."
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


@question(QUESTIONS, 4, 2, "what the choice on validation tells")
def q4(ns):
    check_choices(ns, "answer_q4", correct=choice_facts(), options="abcde")


# What qN.hint() prints in the notebook: a nudge towards the method, never the answer.
HINTS = {
    1: ('Score each hypothesis as logp / length_penalty(len(text.split()) + 1, alpha) (the + 1 is <eos>), and '
        'keep the first one with the largest score.'),
    2: ('For each alpha, take best_hypothesis of every sentence, then sacrebleu.corpus_bleu(hypotheses, '
        '[references]).score. Keep the alpha with the largest BLEU; sort by (-BLEU, alpha) to break ties '
        'towards the smallest alpha.'),
    3: 'Run your choose_alpha on VAL with ALPHAS and read the alpha it returns.',
    4: ('Compute the BLEU of every alpha on VAL and on TEST, and the total number of words your picks have at '
        'each alpha: each statement is one comparison.'),
}
