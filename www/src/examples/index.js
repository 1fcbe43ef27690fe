// The examples menu: each example is a TypeScript file shown in the editor; its first line (a
// comment) is its title.
import basics from "./basics.ts";
import views from "./views.ts";
import autograd from "./autograd.ts";
import einsum from "./einsum.ts";
import mlpDigits from "./mlp-digits.ts";
import safetensors from "./safetensors.ts";
import benchmark from "./benchmark.ts";

const title = (code) => code.split("\n", 1)[0].replace(/^\/\/\s*/, "");

/** `{ id, title, code }` for every example, in menu order. */
export const EXAMPLES = [
  ["basics", basics],
  ["views", views],
  ["autograd", autograd],
  ["einsum", einsum],
  ["mlp-digits", mlpDigits],
  ["safetensors", safetensors],
  ["benchmark", benchmark],
  // The pretrained models of examples/models/, bundled by scripts/build-playground.mjs when present.
  ...MODEL_EXAMPLES.map((m) => [
    m.id,
    `// ${m.title}
import * as torch from "webtorch";
// examples/models/${m.id}.mjs: the model written with webtorch.nn, weights from ${m.base}
import { main } from "/dist/models/${m.id}.js";

const base = new URL("${m.base}", location.href).href;
await main(torch, { base, print, ${m.options} });
`,
  ]),
].map(([id, code]) => ({ id, title: title(code), code }));
