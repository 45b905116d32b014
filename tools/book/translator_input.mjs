// The rules a sentence must pass before chapter 10's translator box translates it: chapter 10's
// check_source (transformer/translate.py) in JavaScript, with the same rules and the same
// messages. tests/test_translator_input.py feeds both the same sentences and compares.
//
// The word pipeline's rule (characters never seen in training) has no counterpart here: the page
// reads a byte-level tokenizer.json (chapter 20), which has a piece for every character.

export const MAX_CHARS = 2000;   // translate.py's MAX_CHARS

// Python's whitespace (str.isspace), which is not quite JavaScript's trim(): \x1c-\x1f and \x85
// are whitespace to Python, the byte order mark U+FEFF is not.
const BLANK = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

// A sentence the model cannot translate; its message is Python's InputError's.
export class InputError extends Error {}

// A source sentence -> the ids the model reads, <eos> included (`encode` makes them from the
// sentence), or an InputError with a one-line message.
export function checkSource(sentence, encode, maxLen) {
  if (BLANK.test(sentence)) throw new InputError("the sentence is empty");
  const chars = [...sentence].length;   // characters as Python counts them: an emoji is one
  if (chars > MAX_CHARS) {
    throw new InputError(`${chars} characters, more than the maximum of ${MAX_CHARS}`);
  }
  const ids = encode(sentence);
  if (ids.length > maxLen) {
    throw new InputError(`${ids.length - 1} tokens, more than the model's maximum of ${maxLen - 1}`);
  }
  return ids;
}
