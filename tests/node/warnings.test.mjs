// torch.warnings: every warning once per key, silenced or turned into errors by filters (after
// Python's `warnings`), and the memory-pressure warning going through them.
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
const W = await import(new URL("warnings.js", PKG_ENTRY).href);

/** The `console.warn` lines `fn` writes. */
function captured(fn) {
  const lines = [];
  const orig = console.warn;
  console.warn = (...a) => lines.push(a.join(" "));
  try {
    fn();
  } finally {
    console.warn = orig;
  }
  return lines;
}

afterEach(() => torch.warnings.resetwarnings());

test("a warning is written once per key", () => {
  const lines = captured(() => {
    assert.equal(W.warnOnce("test.a", "webtorch: first"), true);
    assert.equal(W.warnOnce("test.a", "webtorch: again"), false);
    W.warnOnce("test.b", "webtorch: other");
  });
  assert.deepEqual(lines, ["webtorch: first", "webtorch: other"]);
});

test("simplefilter('ignore') silences every warning; resetwarnings() undoes it", () => {
  torch.warnings.simplefilter("ignore");
  assert.deepEqual(
    captured(() => W.warnOnce("test.a", "webtorch: x")),
    [],
  );
  torch.warnings.resetwarnings();
  assert.deepEqual(
    captured(() => W.warnOnce("test.a", "webtorch: x")),
    ["webtorch: x"],
  );
});

test("filters match by key prefix and message; the newest filter wins", () => {
  torch.warnings.filterwarnings("ignore", { key: "test." });
  torch.warnings.filterwarnings("always", { message: /loud/ });
  const lines = captured(() => {
    W.warnOnce("test.a", "webtorch: quiet");
    W.warnOnce("test.b", "webtorch: loud");
    W.warnOnce("test.b", "webtorch: loud");
    W.warnOnce("other.a", "webtorch: other");
  });
  assert.deepEqual(lines, [
    "webtorch: loud",
    "webtorch: loud",
    "webtorch: other",
  ]);
  torch.warnings.filterwarnings("ignore", { message: "webtorch: oth" });
  assert.deepEqual(
    captured(() => W.warnOnce("other.b", "webtorch: other")),
    [],
  );
});

test("'error' throws a TorchWarning with the key; a bad action is refused", () => {
  torch.warnings.filterwarnings("error", { key: "test." });
  assert.throws(
    () => W.warnOnce("test.a", "webtorch: boom"),
    (e) =>
      e instanceof torch.TorchWarning &&
      e instanceof torch.TorchError &&
      e.key === "test.a" &&
      e.message === "webtorch: boom",
  );
  assert.throws(
    () => torch.warnings.simplefilter("loud"),
    /invalid action: 'loud'/,
  );
});

test("the memory-pressure warning goes through the filters", async () => {
  await torch.init({ device: "cpu" });
  const leak = () => {
    const kept = [];
    for (let i = 0; i < 40; i++) kept.push(torch.zeros(1024));
    return kept;
  };
  torch.webgpu.set_memory_warning({ bytes: 1024, ops: 16 });
  torch.warnings.filterwarnings("ignore", { key: "memory." });
  assert.deepEqual(captured(leak), []);
  torch.warnings.resetwarnings();
  torch.webgpu.set_memory_warning({ bytes: 1024, ops: 16 });
  const lines = captured(leak);
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.match(lines[0], /live tensor memory grew/);
  torch.webgpu.set_memory_warning(true);
});
