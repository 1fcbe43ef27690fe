// Semantic search with all-MiniLM-L6-v2: embed a list of sentences once, then rank them by cosine
// similarity to a query (the embeddings are unit length, so one matmul scores every sentence).
//
//   node examples/models/semantic-search.mjs ["a query"] [--device cpu]   (after make pkg models)
//   In a page: `await main(torch, { base: "/models/all-MiniLM-L6-v2/", print })`; the page's
//   import map must map "@huggingface/tokenizers" (see examples/models/README.md).
import { SentenceEmbedder } from "./bert.mjs";

export const SENTENCES = [
  "A man is eating food.",
  "A man is eating a piece of bread.",
  "The girl is carrying a baby.",
  "A man is riding a horse.",
  "A woman is playing violin.",
  "Two men pushed carts through the woods.",
  "A man is riding a white horse on an enclosed ground.",
  "A monkey is playing drums.",
  "A cheetah is running behind its prey.",
  "The new movie is awesome.",
  "The cat sits outside.",
  "GPUs multiply matrices quickly.",
];

/** Loads the model (showing progress), embeds SENTENCES, prints the best matches for `query`. */
export async function main(
  torch,
  {
    base,
    query = "Someone is having a meal.",
    print = console.log,
    top = 5,
  } = {},
) {
  const model = await SentenceEmbedder.from_pretrained(torch, base, {
    onProgress: (loaded, total) => {
      const pct = total ? ` (${((100 * loaded) / total).toFixed(0)} %)` : "";
      if (loaded === total || !total) print(`weights: ${loaded} bytes${pct}`);
    },
  });
  try {
    const corpus = model.encode(SENTENCES);
    const q = model.encode([query]);
    const ranked = torch.scope(() => q.matmul(corpus.t()).squeeze(0).topk(top));
    const [scores, idx] = await Promise.all([
      ranked.values.toArray(),
      ranked.indices.toArray(),
    ]);
    print(`query: ${query}`);
    idx.forEach((i, k) =>
      print(`  ${scores[k].toFixed(4)}  ${SENTENCES[Number(i)]}`),
    );
    for (const t of [corpus, q, ranked.values, ranked.indices]) t.dispose();
    return { scores: Array.from(scores), indices: Array.from(idx, Number) };
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
  const query = process.argv
    .slice(2)
    .find((a, i, all) => !a.startsWith("--") && all[i - 1] !== "--device");
  await main(torch, {
    base: new URL("../../models/all-MiniLM-L6-v2/", import.meta.url),
    query,
  });
}
