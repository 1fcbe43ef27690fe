// The examples menu. Each example is TypeScript shown in the editor, whole: a single file, or a
// folder whose files become editor tabs (main.ts first: it runs, and imports the others as
// "./name.ts"). The first line of main.ts (a comment) is the example's title. Examples import
// only webtorch (and @huggingface/tokenizers): nothing runs that the editor does not show.
import basics from "./basics.ts";
import views from "./views.ts";
import autograd from "./autograd.ts";
import einsum from "./einsum.ts";
import mlpDigits from "./mlp-digits.ts";
import safetensors from "./safetensors.ts";
import benchmark from "./benchmark.ts";
import dataloader from "./dataloader.ts";
import profiler from "./profiler.ts";
import drawDigitMain from "./draw-digit/main.ts";
import drawDigitModel from "./draw-digit/model.ts";
import drawDigitTrain from "./draw-digit/train.ts";
import cuda from "./cuda.ts";
import searchMain from "./semantic-search/main.ts";
import searchEmbedder from "./semantic-search/embedder.ts";
import searchBert from "./semantic-search/bert.ts";
import textgenMain from "./textgen/main.ts";
import textgenModel from "./textgen/model.ts";

const title = (code) => code.split("\n", 1)[0].replace(/^\/\/\s*/, "");

/** `{ id, title, files: [{ name, code }] }` for every example, in menu order. */
export const EXAMPLES = [
  ["basics", basics],
  ["views", views],
  ["autograd", autograd],
  ["einsum", einsum],
  ["text-generation", { "main.ts": textgenMain, "model.ts": textgenModel }],
  ["mlp-digits", mlpDigits],
  ["dataloader", dataloader],
  ["safetensors", safetensors],
  [
    "draw-digit",
    {
      "main.ts": drawDigitMain,
      "model.ts": drawDigitModel,
      "train.ts": drawDigitTrain,
    },
  ],
  ["cuda", cuda],
  ["profiler", profiler],
  ["benchmark", benchmark],
  // all-MiniLM-L6-v2 (`make models` fetches it into models/, served at /models/).
  [
    "semantic-search",
    {
      "main.ts": searchMain,
      "embedder.ts": searchEmbedder,
      "bert.ts": searchBert,
    },
  ],
].map(([id, src]) => {
  const files = Object.entries(
    typeof src === "string" ? { "main.ts": src } : src,
  ).map(([name, code]) => ({ name, code }));
  return { id, title: title(files[0].code), files };
});
