"""The cases and helpers of translation.py's questions (exercise translation): inputs, expected values, references."""

import sacrebleu

from transformer.generation import length_penalty

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
