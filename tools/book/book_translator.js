// The translator box of chapter 10 (chapters/10_translation.ipynb): the shipped model translates
// what the reader types, in the reader's browser, with nothing sent anywhere.
//
// It is chapter 21's OnnxTranslator (transformer/onnx_export.py) in JavaScript, step for step:
//   - tokenizer.json (chapter 20: a plain Hugging Face tokenizers file) turns the source into the ids
//     the model reads, <eos> included: chapter 9.1's byte-level BPE, chapter 9's with_eos;
//   - encoder.int8.onnx runs once (chapter 4), decoder.int8.onnx once per output token, on the
//     whole prefix (chapter 5; no key/value cache, as chapter 21 explains);
//   - greedy search (chapter 8): the best token each step, never <unk>, stop at <eos> or at
//     chapter 10's output budget;
//   - the map is the last decoder layer's cross-attention (chapter 5), per head or averaged.
// What the reader types is checked first by translator_input.mjs, chapter 10's check_source with
// the same rules and messages. tools/book/book_translator.py serves this file, translator_input.mjs,
// the graphs, onnxruntime-web and the tokenizers library from the site's _static/translator/;
// tools/book/translator_check.py tests the box.

import * as ort from "./ort.wasm.min.mjs";
import { Tokenizer } from "./tokenizers.min.mjs";
import { InputError, checkSource } from "./translator_input.mjs";

const HERE = new URL("./", import.meta.url).href;
ort.env.wasm.wasmPaths = HERE;   // the WebAssembly runtime comes from this folder, not a CDN
ort.env.wasm.numThreads = 1;     // threads need a cross-origin-isolated page; one is enough
const ONNX_FORMAT = 1;           // the onnx.json this page reads (transformer/onnx_export.py)
const NAMES = { en: "English", de: "German", fr: "French", cs: "Czech" };
const language = (code) => NAMES[code] || code;

const box = document.getElementById("tf-translator");

// ---------------------------------------------------------------- the model
async function getJSON(name) {
  const response = await fetch(HERE + name);
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  return response.json();
}

async function loadModel() {
  const start = performance.now();
  const spec = await getJSON("onnx.json");           // written by export_onnx (chapter 21)
  if (spec.format !== ONNX_FORMAT) throw new Error(`onnx.json has format ${spec.format}; this page reads ${ONNX_FORMAT} (re-export with transformer-export --onnx)`);
  const files = spec.files.int8;                     // the 8-bit copy: a quarter of the bytes
  const [tokenizer, encoder, decoder] = await Promise.all([
    getJSON("tokenizer.json").then((json) => new Tokenizer(json, {})),
    ort.InferenceSession.create(HERE + files.encoder),
    ort.InferenceSession.create(HERE + files.decoder),
  ]);
  return { spec, tokenizer, encoder, decoder, loadMs: performance.now() - start };
}

// A row of ids as the graphs take them: int64, shape (1, length).
const idsTensor = (ids) => new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), [1, ids.length]);

// Chapter 10's output_budget: at most 1.5 times the source's length plus 10, within max_len - 1.
const outputBudget = (lenS, maxLen) => Math.min(Math.floor(1.5 * lenS) + 10, maxLen - 1);

// Source sentence -> ids ending in <eos> (OnnxTranslator.input_ids): checkSource's rules, bad
// input throws an InputError whose message the page shows. Any character is allowed, as in
// Python: byte-level BPE has a piece for every byte.
const sourceIds = (model, sentence) =>
  checkSource(sentence, (s) => model.tokenizer.encode(s).ids, model.spec.config.max_len);

// Greedy search (chapter 8) with the two graphs: the output ids and, per output token, the
// last layer's cross-attention (h rows of len_s weights, flattened).
async function greedy(model, src) {
  const { bos, eos, unk } = model.spec.ids;
  const srcTensor = idsTensor(src);
  const { memory } = await model.encoder.run({ src: srcTensor });
  const ys = [bos], maps = [];
  for (let step = 0; step < outputBudget(src.length, model.spec.config.max_len); step++) {
    const out = await model.decoder.run({ tgt: idsTensor(ys), memory, src: srcTensor });
    const logits = out.logits.data;
    let best = -1;                     // the first of equal maxima, as numpy's argmax
    for (let i = 0; i < logits.length; i++) {
      if (i !== unk && (best < 0 || logits[i] > logits[best])) best = i;
    }
    if (best === eos) break;
    ys.push(best);
    maps.push(Float32Array.from(out.cross_attention.data));
  }
  return { ids: ys.slice(1), maps };
}

// ---------------------------------------------------------------- the page
function element(tag, attributes = {}, text = "") {
  const node = Object.assign(document.createElement(tag), attributes);
  if (text) node.textContent = text;
  return node;
}

function setState(state, message) {
  box.dataset.state = state;           // loading, ready, busy, done, error (read by the test)
  status.textContent = message;
  status.className = "tf-status" + (state === "error" ? " tf-error" : "");
}

// The map: a row per target piece, a column per source piece; a cell's shade is the weight.
function drawMap(model, src, result, head) {
  map.replaceChildren();
  if (!result.ids.length) return;
  const h = model.spec.config.h, lenS = src.length;
  const piece = (id) => model.tokenizer.decode([id], { skip_special_tokens: false }).trim() || "·";
  const table = element("table", { className: "tf-map" });
  const header = table.insertRow();
  header.append(element("th"));
  for (const id of src) header.append(element("th", { className: "tf-src" }, piece(id)));
  result.ids.forEach((id, step) => {
    const row = table.insertRow();
    row.append(element("th", {}, piece(id)));
    const weights = new Float32Array(lenS);
    for (let k = 0; k < h; k++) {
      if (head !== "mean" && k !== Number(head)) continue;
      for (let j = 0; j < lenS; j++) weights[j] += result.maps[step][k * lenS + j];
    }
    const total = weights.reduce((a, b) => a + b, 0) || 1;
    for (let j = 0; j < lenS; j++) {
      const w = weights[j] / total;    // a head's row sums to 1; the average of h rows too
      const cell = row.insertCell();
      cell.style.background = `rgba(31, 119, 180, ${w.toFixed(3)})`;
      cell.title = `${piece(id)} -> ${piece(src[j])}: ${w.toFixed(2)}`;
    }
  });
  map.append(table);
}

box.replaceChildren();
box.append(element("style", {}, `
  .tf-translator textarea { width: 100%; font: inherit; padding: .4em; }
  .tf-translator .tf-row { display: flex; gap: .6em; align-items: center; margin: .4em 0; flex-wrap: wrap; }
  .tf-translator .tf-target { font-size: 1.15em; min-height: 1.5em; margin: .4em 0; }
  .tf-translator .tf-status { color: #555; font-size: .9em; margin: .2em 0; }
  .tf-translator .tf-error { color: #b00020; }
  .tf-translator table.tf-map { border-collapse: collapse; font-size: .8em; margin-top: .5em; }
  .tf-translator table.tf-map th { font-weight: normal; padding: 0 .3em; text-align: right; }
  .tf-translator table.tf-map th.tf-src { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left; }
  .tf-translator table.tf-map td { width: 1.4em; height: 1.4em; border: 1px solid #eee; }`));
const input = element("textarea", { id: "tf-source", rows: 2, value: "Zwei Hunde spielen im Schnee." });
input.setAttribute("aria-label", "sentence to translate");
const direction = element("p", { id: "tf-direction", className: "tf-status" });
const button = element("button", { id: "tf-translate", type: "button", disabled: true }, "Translate");
const heads = element("select", { id: "tf-head" });
heads.append(element("option", { value: "mean" }, "map: heads averaged"));
const output = element("p", { id: "tf-target", className: "tf-target" });
const status = element("p", { id: "tf-status" });
const map = element("div", { id: "tf-map" });
const row = element("div", { className: "tf-row" });
row.append(button, heads);
box.append(direction, input, row, output, status, map);

let model = null, last = null;
setState("loading", "Loading the model (about 9 MB) and the runtime ...");
try {
  model = await loadModel();
  const [src, tgt] = model.spec.langs;
  direction.textContent = `${language(src)} → ${language(tgt)}`;
  input.setAttribute("aria-label", `${language(src)} sentence`);
  for (let k = 0; k < model.spec.config.h; k++) heads.append(element("option", { value: k }, `map: head ${k + 1}`));
  box.dataset.loadMs = model.loadMs.toFixed(0);
  setState("ready", `Ready: loaded in ${(model.loadMs / 1000).toFixed(1)} s. Greedy search, the 8-bit copy of the model (chapter 21).`);
  button.disabled = false;
} catch (error) {
  setState("error", `The translator could not start: ${error.message}`);
}

button.addEventListener("click", async () => {
  button.disabled = true;
  output.textContent = "";
  map.replaceChildren();
  try {
    const src = sourceIds(model, input.value);
    setState("busy", "Translating ...");
    const start = performance.now();
    const result = await greedy(model, src);
    const ms = performance.now() - start;
    output.textContent = model.tokenizer.decode(result.ids, { skip_special_tokens: true });
    last = { src, result };
    drawMap(model, src, result, heads.value);
    box.dataset.translateMs = ms.toFixed(0);
    const [from, to] = model.spec.langs.map(language);
    setState("done", `Translated in ${ms.toFixed(0)} ms: ${src.length} ${from} pieces in, ${result.ids.length} ${to} pieces out, greedy.`);
  } catch (error) {   // a sentence the rules refuse, in Python's words; or a failure
    setState("error", error instanceof InputError ? `Not translated: ${error.message}.` : error.message);
  } finally {
    button.disabled = false;
  }
});
heads.addEventListener("change", () => last && drawMap(model, last.src, last.result, heads.value));
