// docs/migration.md runs: each ```js block is run (in order, each in its own module, with the
// guide's imports) and what it logs must equal the ```text block under it; where a ```python
// block stands before it, that text must also be what PyTorch printed for the Python code
// (tests/parity/fixtures/migration.json, written by scripts/migration-fixtures.py).
import test from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PKG_ENTRY } from "./harness.mjs";

const doc = readFileSync(
  new URL("../../docs/migration.md", import.meta.url),
  "utf8",
);
const fixture = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/migration.json", import.meta.url),
    "utf8",
  ),
);

/** The guide's examples: { python?, js, text?, line } in order (the first js block is the imports). */
export function examples(markdown) {
  const blocks = [...markdown.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(
    (m) => ({
      lang: m[1],
      code: m[2],
      line: markdown.slice(0, m.index).split("\n").length,
    }),
  );
  const out = [];
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (b.lang !== "js") continue;
    const prev = blocks[i - 1];
    const next = blocks[i + 1];
    out.push({
      js: b.code,
      line: b.line,
      python: prev?.lang === "python" ? prev.code : undefined,
      text: next?.lang === "text" ? next.code : undefined,
    });
  }
  return out;
}

const all = examples(doc);
const [imports, ...cases] = all;
const dir = mkdtempSync(path.join(tmpdir(), "webtorch-migration-"));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test("the guide's imports are the package's", () => {
  assert.match(imports.js, /import \* as torch from "webtorch";/);
});

test("every Python block of the guide has PyTorch's output recorded, and it is the guide's text", () => {
  const withPython = cases.filter((c) => c.python !== undefined);
  assert.ok(
    withPython.length >= 6,
    `${withPython.length} side-by-side examples`,
  );
  for (const c of withPython) {
    const rec = fixture.find((f) => f.python === c.python);
    assert.ok(
      rec,
      `line ${c.line}: no PyTorch output recorded (run scripts/migration-fixtures.py)`,
    );
    assert.equal(
      c.text,
      rec.output,
      `line ${c.line}: the guide's text is not PyTorch's output`,
    );
  }
});

for (const [i, c] of cases.entries()) {
  test(`docs/migration.md example at line ${c.line} prints its text`, async () => {
    const file = path.join(dir, `example${i}.mjs`);
    const body = imports.js.replace(
      'from "webtorch"',
      `from ${JSON.stringify(PKG_ENTRY.href)}`,
    );
    writeFileSync(
      file,
      `${body}\nexport default async function () {\n${c.js}\n}\n`,
    );
    const { default: run } = await import(pathToFileURL(file).href);
    const lines = [];
    const log = console.log;
    console.log = (...args) => lines.push(args.join(" "));
    try {
      await run();
    } finally {
      console.log = log;
    }
    if (c.text !== undefined) assert.equal(`${lines.join("\n")}\n`, c.text);
  });
}
