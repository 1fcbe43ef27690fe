// Text generation with GPT-2's architecture: greedy decoding with a key/value cache, each token
// printed as it comes. The model in models/gpt2-small/ (a copy of the CI fixture that `make
// models` places there) is GPT-2 with a byte vocabulary and *random* weights from a seeded
// PyTorch init, so its text is noise: the point is that webtorch computes PyTorch's tokens.
// models/gpt2-124m-random/ (`make bench-gpt2`) is the 124M architecture, GPT-2 token ids.
//
//   node examples/models/text-generation.mjs ["prompt"] [--device cpu]   (after make pkg models)
//   In a page: `await main(torch, { base: "/models/gpt2-small/", print })`.
import { GPT2 } from "./gpt2.mjs";

/** Loads the model (showing progress) and prints `max_new_tokens` greedy tokens after `prompt`. */
export async function main(
  torch,
  {
    base,
    prompt = "Once upon a time",
    max_new_tokens = 40,
    print = console.log,
  } = {},
) {
  const model = await GPT2.from_pretrained(torch, base, {
    onProgress: (loaded, total) => {
      const pct = total ? ` (${((100 * loaded) / total).toFixed(0)} %)` : "";
      if (loaded === total || !total) print(`weights: ${loaded} bytes${pct}`);
    },
  });
  try {
    const bytes = model.model.config.vocab_size === 256;
    const ids = bytes
      ? Array.from(new TextEncoder().encode(prompt))
      : prompt.split(/\s+/).map(Number); // the 124M config takes token ids
    const t0 = performance.now();
    const out = await model.generate(ids, { max_new_tokens });
    const s = (performance.now() - t0) / 1000;
    const text = bytes
      ? new TextDecoder().decode(Uint8Array.from(out))
      : out.join(" ");
    print(`${prompt} → ${JSON.stringify(text)}`);
    print(
      `${out.length} tokens in ${s.toFixed(2)} s (${(out.length / s).toFixed(1)} tokens/s)`,
    );
    return out;
  } finally {
    model.dispose();
  }
}

if (
  typeof process !== "undefined" &&
  import.meta.url ===
    (await import("node:url")).pathToFileURL(process.argv[1]).href
) {
  const torch = await import(
    new URL("../../pkg/dist/index.js", import.meta.url)
  );
  const d = process.argv.indexOf("--device");
  await torch.init({ device: d > 0 ? process.argv[d + 1] : "auto" });
  const prompt = process.argv
    .slice(2)
    .find((a, i, all) => !a.startsWith("--") && all[i - 1] !== "--device");
  await main(torch, {
    base: new URL("../../models/gpt2-small/", import.meta.url),
    prompt,
  });
}
