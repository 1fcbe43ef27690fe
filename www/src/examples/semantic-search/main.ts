// Semantic search with all-MiniLM-L6-v2 (a real sentence-transformers model)
import * as torch from "webtorch";
import { SentenceEmbedder } from "./embedder.ts";

// The sentences to search, and the query (change it and run again).
const sentences = [
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
const query = "Someone is having a meal.";

// 22.7M parameters, 91 MB of float32 (`make models` fetches them into models/).
const base = new URL("/models/all-MiniLM-L6-v2/", location.href).href;
const model = await SentenceEmbedder.from_pretrained(base, {
  onProgress: (loaded, total) => {
    progress("weights", loaded, total ?? loaded);
    if (loaded === total) print(`weights: ${loaded} bytes (100 %)`);
  },
});

// Unit-length embeddings: one matmul gives the cosine similarity of the query to each sentence.
const corpus = model.encode(sentences);
const q = model.encode([query]);
const { values, indices } = q.matmul(corpus.t()).squeeze(0).topk(5);
const [scores, order] = await Promise.all([
  values.toArray(),
  indices.toArray(),
]);
print(`query: ${query}`);
Array.from(order, Number).forEach((i, k) =>
  print(`  ${scores[k].toFixed(4)}  ${sentences[i]}`),
);
model.model.dispose();
