"""The cases and helpers of subwords.py's questions (exercise subwords): inputs, expected values, references."""

import json
import os
import random
from collections import Counter

from tokenizers import Tokenizer, models, trainers

from transformer.subwords import apply_bpe, byte_words, learn_bpe

from ..checks import Miss

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # no thread pool to inherit across the forks


def library_merges(word_counts, n_merges):
    """The merges `tokenizers` learns from {word: count}, in order. Each word goes in `count` times, with no
    pre-tokenizer (a word is its characters) and no special tokens, so the vocabulary starts with the alphabet
    and grows by one symbol per merge: `vocab_size` asks for `n_merges` merges (fewer when no pair is left)."""
    tok = Tokenizer(models.BPE())
    alphabet = {c for word in word_counts for c in word}
    trainer = trainers.BpeTrainer(vocab_size=len(alphabet) + n_merges, show_progress=False)
    tok.train_from_iterator([w for w, count in word_counts.items() for _ in range(count)], trainer)
    merges = [
        tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in json.loads(tok.to_str())["model"]["merges"]
    ]
    made = ["".join(m) for m in merges]
    assert len(set(made) | alphabet) == len(made) + len(alphabet), "a merge made a symbol twice"
    return merges


def library_pieces(word, merges):
    "The pieces the library's BPE model cuts `word` into with `merges` (learnt in this order)."
    vocab = {c: i for i, c in enumerate(sorted(set(word) | {c for m in merges for c in "".join(m)}))}
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    return [t.value for t in models.BPE(vocab=vocab, merges=list(merges)).tokenize(word)]


def join(symbols, pair):
    "Symbols with every occurrence of `pair`, left to right, joined into one (for the hints)."
    out, i = [], 0
    while i < len(symbols):
        if tuple(symbols[i : i + 2]) == pair:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def pair_counts(word_counts, merges):
    "{pair: count} after `merges`, weighted by the words' counts (for the hints)."
    counts = Counter()
    for word, count in word_counts.items():
        symbols = list(word)
        for m in merges:
            symbols = join(symbols, m)
        for p in zip(symbols, symbols[1:]):
            counts[p] += count
    return counts


def show(words, limit=8):
    items = list(words.items())
    text = ", ".join(f"{w!r}: {c}" for w, c in items[:limit])
    return "{" + text + (f", ... ({len(items)} words)" if len(items) > limit else "") + "}"


# ---------------------------------------------------------------- the word lists
SENNRICH = {"low": 5, "lower": 2, "newest": 6, "widest": 3}  # Sennrich et al. (2016)'s example

GERMAN = {
    "Mann": 12,
    "Männer": 7,
    "Frau": 9,
    "Frauen": 4,
    "Hund": 8,
    "Hunde": 3,
    "Helm": 2,
    "Schutzhelm": 2,
    "Schutzhelmen": 1,
    "Holz": 3,
    "Zaun": 2,
    "Holzzaun": 1,
    "Straße": 5,
    "Straßen": 2,
    "spielen": 6,
    "spielt": 5,
    "Mädchen": 6,
    "Jungen": 4,
    "Hündin": 1,
}

SENTENCES = [
    "Zwei Männer stehen am Herd und bereiten Essen zu.",
    "Ein Mann mit einem Schutzhelm geht über die Straße.",
    "Ein kleines Mädchen klettert in ein Spielhaus aus Holz.",
    "Mehrere Männer mit Schutzhelmen bedienen ein Antriebsradsystem.",
    "Zwei Hunde spielen im Schnee vor einem Holzzaun.",
]

BYTE_LEVEL = Counter(w for s in SENTENCES for w in byte_words(s))  # as section 9.1 spells words: "ĠMÃ¤nner"


def random_lists(seed=10, n=30):
    "Small word lists over few letters (many ties, overlapping pairs, words of one letter), and a number of merges."
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        letters = rng.choice(["ab", "abc", "abcä", "Zaäß", "aeinrst"])
        words = {}
        for _ in range(rng.randint(2, 9)):
            word = "".join(rng.choice(letters) for _ in range(rng.randint(1, 8)))
            words[word] = words.get(word, 0) + rng.randint(1, 4)
        out.append((words, rng.randint(1, 25)))
    return out


CASES = [  # (words, number of merges, what the case is about)
    (SENNRICH, 10, "Sennrich et al.'s four words"),
    (SENNRICH, 0, "no merge asked"),
    ({"ab": 1, "abab": 1, "cd": 5}, 3, "counts decide, not the number of different words a pair occurs in"),
    ({"ab": 1, "cd": 1, "ba": 1, "dc": 1}, 4, "every pair occurs once: ties all the way"),
    ({"abx": 2, "by": 2, "ab": 1}, 3, "a tie between a merged symbol ('ab') and an older one ('b')"),
    ({"za": 1, "äa": 1, "Za": 1}, 3, "a tie between 'Z', 'z' and 'ä' (code-point order: 'Z' < 'z' < 'ä')"),
    (
        {"aaaa": 3, "aaab": 1, "baaa": 1, "ab": 6},
        6,
        "runs of one letter: a pair that occurs two or three times in a word",
    ),
    ({"ab": 2, "abc": 1, "c": 4}, 10, "more merges asked than there are pairs: stop when no pair is left"),
    (GERMAN, 40, "German words, umlauts and ß included"),
    (BYTE_LEVEL, 60, "words of five German sentences as section 9.1 spells them (byte-level)"),
] + [(w, n, f"random word list {i + 1}") for i, (w, n) in enumerate(random_lists())]

MERGES = [library_merges(words, n) for words, n, _ in CASES]

# the chapter's readable learn_bpe agrees with the library where it can be used: plain letters and byte-level words
assert MERGES[0] == learn_bpe(SENNRICH, 10) and MERGES[9] == learn_bpe(BYTE_LEVEL, 60)


def merges_of(got, what):
    "The learner's merges as a list of (str, str) tuples, or Miss."
    if isinstance(got, (str, bytes, dict, set)) or not hasattr(got, "__iter__"):
        raise Miss(f"{what} is not a list of pairs", f'Got a {type(got).__name__}; expected e.g. [("e", "s"), ...].')
    out = []
    for m in got:
        if isinstance(m, str) or not hasattr(m, "__len__") or len(m) != 2 or not all(isinstance(s, str) for s in m):
            raise Miss(
                f"{what} is not a list of pairs of strings",
                f'One of its items is {m!r}; each merge is a pair (left, right) of two symbols, e.g. ("e", "s").',
            )
        out.append(tuple(m))
    return out


# ---------------------------------------------------------------- 2: learn the merges
def explain(words, n, want, got):
    "Where the learner's merges leave the library's, and why (counts at that step), without code."
    k = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
    agree = f"the first {k} merges agree" if k > 1 else "the first merge agrees" if k else "the first merge differs"
    if k == len(want) and len(got) > len(want):
        return (
            f"{agree}; after them no pair of neighbouring symbols is left (every word is one symbol), but you "
            f"return {len(got)} merges. Stop when there is no pair left."
        )
    if k == len(got):
        return f"{agree}, then your list ends: {len(want)} merges were expected ({n} asked, pairs still left)."
    counts = pair_counts(words, want[:k])
    a, b = want[k], got[k]
    text = (
        f"{agree}; merge {k + 1} should join {a} ({counts[a]} times, counts included), you joined {b} "
        f"({counts[b]} times)"
    )
    if counts[b] == counts[a]:
        text += (
            ". A tie: it goes to the pair whose left symbol, then right symbol, entered the vocabulary first "
            "(the characters in code-point order, then each merged symbol when it was made)"
        )
    return text + "."


# ---------------------------------------------------------------- 3: cut a new word
GERMAN_MERGES, BYTE_MERGES = MERGES[8], MERGES[9]

SEGMENT_CASES = [  # (word, merges, what the case is about)
    ("abc", [("b", "c"), ("a", "b")], "the earlier merge wins, although its pair stands further right"),
    ("abab", [("a", "b")], "a pair that occurs twice"),
    ("aaa", [("a", "a")], "overlapping pairs: left to right"),
    ("aaaaa", [("a", "a"), ("aa", "aa")], "a merge of merged symbols"),
    ("abcabc", [("b", "c"), ("a", "bc"), ("abc", "abc")], "down to one piece"),
    ("xyz", [("a", "b")], "no merge applies"),
    ("a", [("a", "b")], "a word of one letter"),
    ("abcd", [], "no merges at all"),
    ("Holzhelm", GERMAN_MERGES, "a new German compound, the 40 merges of the German word list"),
    ("Schutzzaun", GERMAN_MERGES, "a new German compound, the 40 merges of the German word list"),
    ("Hündinnen", GERMAN_MERGES, "a new word, the 40 merges of the German word list"),
    (byte_words("Holzhelme")[0], BYTE_MERGES, "a new byte-level word, the 60 merges of the five sentences"),
    (byte_words("Männerhunde")[0], BYTE_MERGES, "a new byte-level word, the 60 merges of the five sentences"),
]

PIECES = [library_pieces(word, merges) for word, merges, _ in SEGMENT_CASES]

assert all(apply_bpe(w, m) == p for (w, m, _), p in zip(SEGMENT_CASES, PIECES))  # the chapter's agrees


def show_merges(merges, limit=6):
    return (
        "[" + ", ".join(map(str, merges[:limit])) + (f", ... ({len(merges)} merges)]" if len(merges) > limit else "]")
    )
