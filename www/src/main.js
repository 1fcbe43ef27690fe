// The playground page: a CodeMirror 6 editor with TypeScript's language service (completion, TSDoc
// on hover, type and shape errors underlined as you type, against webtorch's own .d.ts), Run in a
// worker on the built package, the output and plots panels, and side panels with the engine's
// live statistics. `window.playground` is the handle the Playwright tests use.
import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { EditorState, Prec } from "@codemirror/state";
import { javascript } from "@codemirror/lang-javascript";
import { autocompletion } from "@codemirror/autocomplete";
import { forEachDiagnostic } from "@codemirror/lint";
import {
  tsFacetWorker,
  tsSyncWorker,
  tsLinterWorker,
  tsAutocompleteWorker,
  tsHoverWorker,
} from "@valtown/codemirror-ts";
import * as Comlink from "comlink";
import { EXAMPLES } from "./examples/index.js";
import { Plots } from "./plots.js";
import { decodeCode, encodeCode } from "./share.js";
import { DrawPad } from "./draw-pad.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const QUICK = params.has("quick");

// ---- the editor and its TypeScript worker ----

const tsWorker = Comlink.wrap(
  new Worker(new URL("./ts-worker.js", import.meta.url), { type: "module" }),
);
const tsReady = tsWorker.initialize();

// One editor, one EditorState per file (tab): each state has its own path in the language
// service's virtual file system, so `import … from "./model.ts"` between tabs type-checks.
const editorExtensions = (name) => [
  basicSetup,
  javascript({ typescript: true }),
  tsFacetWorker.of({ worker: tsWorker, path: `/${name}` }),
  tsSyncWorker(),
  tsLinterWorker(),
  autocompletion({ override: [tsAutocompleteWorker()] }),
  tsHoverWorker({ renderTooltip: hoverTooltip }),
  Prec.highest(
    keymap.of([
      { key: "Mod-Enter", run: () => (runCode(), true) },
      { key: "Mod-s", run: () => (share(), true) },
    ]),
  ),
  EditorView.theme({ "&": { height: "100%" } }),
];
const view = new EditorView({ parent: $("editor") });
/** The hover card: the signature, then the TSDoc text and its tags (@example, @param …). */
function hoverTooltip(info) {
  const dom = document.createElement("div");
  dom.className = "ts-hover";
  const text = (parts) => (parts ?? []).map((p) => p.text).join("");
  const sig = document.createElement("pre");
  sig.className = "ts-signature";
  sig.textContent = text(info.quickInfo?.displayParts);
  dom.append(sig);
  const doc = text(info.quickInfo?.documentation);
  if (doc) {
    const p = document.createElement("div");
    p.className = "ts-doc";
    p.textContent = doc;
    dom.append(p);
  }
  for (const tag of info.quickInfo?.tags ?? []) {
    const t = document.createElement("div");
    t.className = "ts-tag";
    t.textContent = `@${tag.name} ${text(tag.text)}`;
    dom.append(t);
  }
  return { dom };
}

/** The open files, `main.ts` first (the one that runs): `{ name, state }`. */
let files = [];
let active = 0;

/** Replaces the editor's files (`[{ name, code }]`, the entry first) and shows the first. */
function setFiles(list) {
  files = list.map(({ name, code }) => ({
    name,
    state: EditorState.create({
      doc: code,
      extensions: editorExtensions(name),
    }),
  }));
  // Every file is in the language service from the start, not only the tab on screen.
  for (const { name, code } of list)
    tsReady.then(() => tsWorker.updateFile({ path: `/${name}`, code }));
  active = 0;
  view.setState(files[0].state);
  renderTabs();
}
/** Shows tab `i` (the other tabs keep their text, selection and undo history). */
function showTab(i) {
  if (i === active || !files[i]) return;
  files[active].state = view.state;
  active = i;
  view.setState(files[i].state);
  renderTabs();
}
/** `[{ name, code }]` of every tab, as edited. */
function getFiles() {
  files[active].state = view.state;
  return files.map(({ name, state }) => ({ name, code: state.doc.toString() }));
}
function renderTabs() {
  const bar = $("tabs");
  bar.hidden = files.length < 2;
  bar.replaceChildren(
    ...files.map(({ name }, i) => {
      const b = document.createElement("button");
      b.textContent = name;
      b.className = i === active ? "tab active" : "tab";
      b.setAttribute("role", "tab");
      b.setAttribute("aria-selected", String(i === active));
      b.addEventListener("click", () => showTab(i));
      return b;
    }),
  );
}
const getCode = () => getFiles()[0].code;
const setCode = (code) => setFiles([{ name: "main.ts", code }]);

// ---- examples and sharing ----

const select = $("examples");
for (const ex of EXAMPLES) select.add(new Option(ex.title, ex.id));
select.add(new Option("(your code)", "custom"));
select.addEventListener("change", () => {
  const ex = EXAMPLES.find((e) => e.id === select.value);
  if (!ex) return;
  loadExample(ex);
  history.replaceState(null, "", `${location.search}#example=${ex.id}`);
});
/** Shows example `ex`: a run in progress is stopped and the last run's results are cleared. */
function loadExample(ex) {
  stop();
  clearResults();
  setFiles(ex.files);
}

/** Puts the code in the URL's hash (deflated, base64url) and copies the link. */
async function share() {
  const list = getFiles();
  const text =
    list.length === 1 ? list[0].code : JSON.stringify({ files: list });
  const hash = `#code=${await encodeCode(text)}`;
  history.replaceState(null, "", location.search + hash);
  select.value = "custom";
  await navigator.clipboard?.writeText(location.href).catch(() => {});
  $("timing").textContent = "link copied: the code is in the URL";
}
$("share").addEventListener("click", share);

/** The files the URL's hash names: shared code, or an example (the first by default). */
async function filesFromHash() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.has("code")) {
    select.value = "custom";
    const text = await decodeCode(hash.get("code"));
    if (text.startsWith('{"files":')) return JSON.parse(text).files;
    return [{ name: "main.ts", code: text }];
  }
  const ex = EXAMPLES.find((e) => e.id === hash.get("example")) ?? EXAMPLES[0];
  select.value = ex.id;
  return ex.files;
}

// ---- the run worker ----

const output = $("output");
const plots = new Plots($("plots"));
let worker = null;
let workerReady = null;
let running = null;
let device = null;

function startWorker() {
  worker = new Worker(new URL("./run-worker.js", import.meta.url), {
    type: "module",
  });
  workerReady = new Promise((resolve) => {
    worker.addEventListener("message", (e) => {
      const msg = e.data;
      if (msg.type === "ready") {
        device = msg.device;
        showDevice(msg);
        resolve();
      } else if (msg.type === "fatal") {
        $("device").textContent = "webtorch failed to load";
        appendOutput(msg.message, "error");
      } else onMessage(msg);
    });
  });
}

function showDevice({ device, adapter, navigatorGpu }) {
  const badge = $("device");
  badge.className = `badge ${device}`;
  badge.textContent =
    device === "webgpu" ? `webgpu · ${adapter.name}` : "cpu backend";
  const banner = $("banner");
  banner.hidden = device === "webgpu";
  banner.textContent = navigatorGpu
    ? "WebGPU is present but gave no adapter: webtorch runs everything on its CPU backend (slower, same results)."
    : "This browser has no WebGPU: webtorch runs everything on its CPU backend (slower, same results). Chrome, Edge and Safari 26 have WebGPU.";
  const panel = $("panel-adapter");
  panel.replaceChildren();
  if (!adapter) {
    panel.textContent = "no WebGPU adapter (CPU backend)";
    return;
  }
  const name = document.createElement("p");
  name.textContent = `${adapter.name} (${adapter.backend})`;
  const feats = document.createElement("p");
  feats.className = "features";
  feats.textContent = adapter.features.length
    ? adapter.features.join(", ")
    : "no optional features";
  const limits = document.createElement("details");
  limits.innerHTML = "<summary>limits</summary>";
  limits.append(
    table(Object.entries(adapter.limits).map(([k, v]) => [k, fmtInt(v)])),
  );
  panel.append(name, feats, limits);
}

function appendOutput(text, cls) {
  const line = document.createElement("span");
  line.textContent = text + "\n";
  if (cls) line.className = cls;
  output.append(line);
  output.scrollTop = output.scrollHeight;
}

function onMessage(msg) {
  if (msg.type === "print")
    appendOutput(msg.text, msg.error ? "error" : msg.warning ? "warning" : "");
  else if (msg.type === "plot") plots.add(msg);
  else if (msg.type === "progress") {
    $("progress").hidden = false;
    $("progress-label").textContent = `${msg.label} ${msg.done}/${msg.total}`;
    $("progress-bar").value = msg.total ? msg.done / msg.total : 0;
  } else if (msg.type === "pad") {
    // A drawing pad the code asked for (`drawPad()`): each finished stroke goes back to it.
    const pad = new DrawPad(msg, (pixels) =>
      worker.postMessage({ type: "pad", id: msg.id, pixels }, [pixels.buffer]),
    );
    $("plots").prepend(pad.figure);
  } else if (msg.type === "stats") showStats(msg.stats);
  else if (msg.type === "done") running?.(msg);
}

/** Clears what the last run showed: output, plots, drawing pads, progress, timing. */
function clearResults() {
  output.replaceChildren();
  output.dataset.done = "";
  plots.clear();
  $("progress").hidden = true;
  $("progress-label").textContent = "";
  $("progress-bar").value = 0;
  $("timing").textContent = "";
  $("panel-profiler").replaceChildren();
}

/** Runs the editor's files (main.ts first); resolves when it finished (or failed, or was stopped). */
async function runCode() {
  if (running) return;
  clearResults();
  $("run").disabled = true;
  $("stop").disabled = false;
  $("timing").textContent = "running…";
  $("panels").dataset.updatesAtStart = String(statsUpdates);
  let resolveRun;
  const started = new Promise((r) => (running = resolveRun = r));
  await Promise.all([tsReady, workerReady]);
  const list = getFiles();
  const built = await Promise.all(
    list.map(async (f) => ({
      name: f.name,
      ...(await tsWorker.transpile(f.code)),
    })),
  );
  const bad = built.find((f) => f.error);
  if (bad) {
    resolveRun({
      error: {
        name: "SyntaxError",
        message: bad.error.message,
        at: { file: bad.name, line: bad.error.line },
      },
    });
  } else if (running === resolveRun) {
    worker.postMessage({
      type: "run",
      files: built.map(({ name, js, map }) => ({ name, js, map })),
      quick: QUICK,
    });
  }
  const done = await started;
  if (running === resolveRun) running = null;
  if (done.error) {
    const { name, message, at } = done.error;
    const where = !at?.line
      ? ""
      : list.length > 1
        ? ` (${at.file}, line ${at.line})`
        : ` (line ${at.line})`;
    appendOutput(`${name}: ${message}${where}`, "error");
    if (at?.line) highlightLine(at.file, at.line);
  }
  if (done.profile) showProfile(done.profile);
  $("timing").textContent = done.stopped
    ? "stopped"
    : `${done.error ? "failed after" : "ran in"} ${(done.ms ?? 0).toFixed(0)} ms on ${device}`;
  output.dataset.done = done.error
    ? "error"
    : done.stopped
      ? "stopped"
      : "true";
  $("run").disabled = false;
  $("stop").disabled = true;
}

/**
 * Ends a run by terminating the worker (a runaway loop included): the browser then frees the
 * worker's WebGPU device and every buffer on it. A fresh worker takes its place; its first
 * statistics are the memory panel's baseline again.
 */
function stop() {
  if (!running) return;
  const resolve = running;
  running = null;
  worker.terminate();
  // The pads of the stopped run have no code listening any more.
  for (const pad of document.querySelectorAll("#plots .plot-pad")) pad.remove();
  resolve({ stopped: true });
  startWorker();
}

function highlightLine(file, line) {
  const i = files.findIndex((f) => f.name === file);
  if (i >= 0) showTab(i);
  const l = view.state.doc.line(Math.min(line, view.state.doc.lines));
  view.dispatch({
    selection: { anchor: l.from, head: l.to },
    scrollIntoView: true,
  });
}

// ---- side panels ----

const fmtInt = (n) =>
  typeof n === "number" ? n.toLocaleString("en-US") : String(n);
const fmtBytes = (n) =>
  n < 1024
    ? `${n} B`
    : n < 2 ** 20
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${(n / 2 ** 20).toFixed(2)} MiB`;

function table(rows, head) {
  const t = document.createElement("table");
  if (head)
    t.createTHead()
      .insertRow()
      .append(...head.map(cell("th")));
  const body = t.createTBody();
  for (const r of rows) body.insertRow().append(...r.map(cell("td")));
  return t;
}
const cell = (tag) => (v) => {
  const c = document.createElement(tag);
  c.textContent = String(v);
  return c;
};
function fill(id, rows) {
  const t = $(id);
  t.replaceChildren(...table(rows).childNodes);
}

let statsUpdates = 0;
function showStats({ memory, live_tensors, fusion, batching }) {
  // Counted for the tests: the panels update while code runs, not only at its end.
  $("panels").dataset.updates = String(++statsUpdates);
  fill("panel-memory", [
    ["active", fmtBytes(memory.active_bytes)],
    ["pooled", fmtBytes(memory.pooled_bytes)],
    ["peak", fmtBytes(memory.peak_bytes)],
    ["live tensors", fmtInt(live_tensors)],
    ["allocations", fmtInt(memory.allocations)],
    ["pool reuses", fmtInt(memory.reuses)],
  ]);
  fill("panel-fusion", [
    ["fused kernels", fmtInt(fusion.fusions)],
    ["ops fused", fmtInt(fusion.fused_ops)],
    ["bypasses (small)", fmtInt(fusion.bypasses)],
    ...Object.entries(fusion.patterns ?? {})
      .filter(([, n]) => n > 0)
      .map(([k, n]) => [`  ${k}`, fmtInt(n)]),
  ]);
  fill("panel-batching", [
    ["batching", batching.enabled ? "on" : "off"],
    ["pending", fmtInt(batching.pending)],
    ["submits", fmtInt(batching.submits)],
    ["dispatches", fmtInt(batching.dispatches)],
    ["pipelines cached", fmtInt(batching.pipelines)],
  ]);
}

function showProfile(rows) {
  const t = $("panel-profiler");
  const us = (v) =>
    v >= 1000 ? `${(v / 1000).toFixed(2)} ms` : `${v.toFixed(0)} µs`;
  t.replaceChildren(
    ...table(
      rows.map((r) => [
        r.key,
        fmtInt(r.count),
        us(r.cpu_time_total),
        us(r.cpu_time),
      ]),
      ["op", "calls", "host total", "host avg"],
    ).childNodes,
  );
}

// ---- start ----

$("run").addEventListener("click", runCode);
$("stop").addEventListener("click", stop);
startWorker();
setFiles(await filesFromHash());
window.addEventListener("hashchange", async () => {
  stop();
  clearResults();
  setFiles(await filesFromHash());
});
await Promise.all([tsReady, workerReady]);
$("run").disabled = false;
document.body.dataset.ready = "true";

window.playground = {
  examples: EXAMPLES.map(({ id, title }) => ({ id, title })),
  /** Loads example `id` into the editor. */
  load(id) {
    select.value = id;
    select.dispatchEvent(new Event("change"));
  },
  getCode,
  setCode,
  /** `[{ name, code }]` of the editor's tabs, `main.ts` first. */
  getFiles,
  setFiles,
  /** Shows the tab of file `name`. */
  showTab: (name) => showTab(files.findIndex((f) => f.name === name)),
  stop,
  /** Screen coordinates (client px) of document offset `pos`, for pointing at code. */
  coordsAt(pos) {
    const c = view.coordsAtPos(pos);
    return c && { x: (c.left + c.right) / 2, y: (c.top + c.bottom) / 2 };
  },
  run: runCode,
  /** TypeScript's diagnostics of the editor's code now (asks the language service directly). */
  async typeErrors() {
    await tsReady;
    const list = getFiles();
    for (const { name, code } of list)
      await tsWorker.updateFile({ path: `/${name}`, code });
    const out = [];
    for (const { name, code } of list) {
      const lints = await tsWorker.getLints({
        path: `/${name}`,
        diagnosticCodesToIgnore: [],
      });
      const state = EditorState.create({ doc: code });
      for (const d of lints)
        out.push({
          ...(list.length > 1 ? { file: name } : {}),
          line: state.doc.lineAt(d.from).number,
          message: d.message,
        });
    }
    return out;
  },
  /** The editor's current diagnostics: `[{ from, to, line, severity, message }]`. */
  diagnostics() {
    const out = [];
    forEachDiagnostic(view.state, (d, from, to) =>
      out.push({
        from,
        to,
        line: view.state.doc.lineAt(from).number,
        severity: d.severity,
        message: d.message,
      }),
    );
    return out;
  },
};
if (!params.has("norun")) runCode();
