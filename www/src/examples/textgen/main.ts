// Text generation: a small character-level transformer trained on the King James Bible
import * as torch from "webtorch";
import { CharGPT, codec, generate, type Config } from "./model.ts";

// Trained in PyTorch by scripts/textgen/train.py on data/kjv.txt (nine books, public domain):
// 1.3M parameters, 5 MB of float32 safetensors.
const base = "/assets/textgen/";
const config: Config = await (await fetch(base + "config.json")).json();
const state = await torch.load(base + "model.safetensors", {
  onProgress: (loaded, total) => progress("weights", loaded, total ?? loaded),
});
const model = new CharGPT(config);
model.load_state_dict(state); // strict: every name of PyTorch's state dict
Object.values(state).forEach((t) => t.dispose());
print(
  `${model.parameters().reduce((n, p) => n + p.numel(), 0)} parameters on ${torch.get_default_device()}`,
);

const { encode, decode } = codec(config.vocab);
const prompt = "And the LORD said unto Moses, ";
const count = QUICK ? 40 : 400;
torch.manual_seed(0); // change the seed (or the prompt) for other text
print(prompt + "…");

let line = prompt;
let done = 0;
const t0 = performance.now();
const rate = () => (done / ((performance.now() - t0) / 1000)).toFixed(1);
await generate(model, encode(prompt), count, {
  temperature: 0.8,
  onToken: (id) => {
    done++;
    const c = decode([id]);
    if (c === "\n") {
      print(line);
      line = "";
    } else line += c;
    if (done % 10 === 0 || done === count)
      progress(`generating · ${rate()} tokens/s`, done, count);
  },
});
if (line) print(line);
print(
  `${count} tokens in ${((performance.now() - t0) / 1000).toFixed(2)} s (${rate()} tokens/s)`,
);
model.dispose();
