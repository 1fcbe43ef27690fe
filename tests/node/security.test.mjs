// Security lint: no code path turns a string into code. Scans the hand-written sources that ship
// (ts/src) or are served (www) for eval and the Function constructor, which would let a model
// file, an einsum equation or any other user string run as JavaScript.
import test from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const FORBIDDEN = [
  // eval(…), but not a method such as Module.eval() or its declaration `eval(): this`
  [/(^|[^.\w])eval\s*\((?!\)\s*:)/, "eval("],
  [/\b(globalThis|window|self)\.eval\b/, "global eval"],
  [/\bnew\s+Function\s*\(/, "new Function("],
  [/(^|[^.\w])Function\s*\(\s*["'`]/, "Function(string)"],
  [
    /\bset(Timeout|Interval)\s*\(\s*["'`]/,
    "setTimeout/setInterval with a string",
  ],
];

async function* sources(dir) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (e.name !== "wasm" && e.name !== "node_modules") yield* sources(p);
    } else if (/\.(ts|mts|js|mjs|html)$/.test(e.name)) yield p;
  }
}

test("no eval or Function constructor in ts/src and www", async () => {
  const hits = [];
  let files = 0;
  for (const dir of ["ts/src", "www"]) {
    for await (const file of sources(`${root}${dir}`)) {
      files++;
      const lines = (await readFile(file, "utf8")).split("\n");
      lines.forEach((line, i) => {
        for (const [re, what] of FORBIDDEN)
          if (re.test(line))
            hits.push(`${file.slice(root.length)}:${i + 1}: ${what}`);
      });
    }
  }
  assert.ok(files > 20, `scanned ${files} files`);
  assert.deepEqual(hits, []);
});

test("the lint catches what it looks for", () => {
  const bad = [
    "eval(x)",
    "  return eval(code);",
    "globalThis.eval(s)",
    "const f = new Function('a', body);",
    "Function('return 1')",
    "setTimeout('alert(1)', 0)",
  ];
  for (const line of bad)
    assert.ok(
      FORBIDDEN.some(([re]) => re.test(line)),
      `not caught: ${line}`,
    );
  for (const fine of ["model.eval();", "  eval(): this {", "evaluate(x)"])
    assert.ok(!FORBIDDEN.some(([re]) => re.test(fine)), `flagged: ${fine}`);
});
