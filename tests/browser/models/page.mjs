// The page side of models.test.mjs: the example models (examples/models/) in the browser, loaded
// over HTTP from `make models`' folder and the committed GPT-2 fixture, compared with PyTorch's
// numbers in the page; only the errors go back to the test.
import * as torch from "webtorch";
import { SentenceEmbedder } from "/examples/models/bert.mjs";
import { GPT2 } from "/examples/models/gpt2.mjs";

const FIX = "/tests/parity/fixtures/models/";
const json = async (url) => (await fetch(url)).json();

/** max |a − e| and max |e| over flat lists. */
function errors(a, e) {
  let abs = 0;
  let scale = 0;
  e.forEach((x, i) => {
    abs = Math.max(abs, Math.abs(a[i] - x));
    scale = Math.max(scale, Math.abs(x));
  });
  return { abs, rel: abs / scale };
}

window.modelTests = {
  /** Embeddings of reference sentences `which` (indices; all when absent) on `device`. */
  async minilm(device, which) {
    await torch.init({ device });
    const ref = await json(`${FIX}minilm.json`);
    which ??= ref.sentences.map((_, i) => i);
    const progress = [];
    const model = await SentenceEmbedder.from_pretrained(
      torch,
      new URL("/models/all-MiniLM-L6-v2/", location.href),
      { onProgress: (loaded, total) => progress.push([loaded, total]) },
    );
    const ids = which.every(
      (i) =>
        model.tokenize(ref.sentences[i]).join() === ref.input_ids[i].join(),
    );
    const e = model.encode(
      which.map((i) => ref.sentences[i]),
      { batch_size: device === "cpu" ? 1 : 4 },
    );
    const got = await e.toArray();
    e.dispose();
    model.dispose();
    const err = errors(
      got,
      which.flatMap((i) => ref.embeddings[i]),
    );
    return { count: which.length, ids, maxAbs: err.abs, progress };
  },
  /** GPT-2 small-config logits and greedy tokens on `device`. */
  async gpt2(device) {
    await torch.init({ device });
    const ref = await json(`${FIX}gpt2-small/reference.json`);
    const model = await GPT2.from_pretrained(
      torch,
      new URL(`${FIX}gpt2-small/`, location.href),
    );
    const logits = model.logits(ref.prompt);
    const got = await logits.toArray();
    logits.dispose();
    const tokens = await model.generate(ref.prompt, {
      max_new_tokens: ref.generated.length,
    });
    model.dispose();
    return {
      rel: errors(got, ref.logits.flat()).rel,
      tokens,
      expected: ref.generated,
    };
  },
};
document.getElementById("status").textContent = "ready";
window.modelsReady = true;
