/**
 * The parity runner: replays the PyTorch fixtures (tests/parity/fixtures/*.json, written by gen.py)
 * on webtorch and compares shapes, dtypes, values (per-case tolerance) and errors (class and
 * message). Plain ES module with no Node-only imports at the top level, so a browser page can use
 * it as is; tests/parity/node.mjs is the command-line driver. Format: tests/parity/README.md.
 *
 * ```js
 * import * as torch from "webtorch";
 * import { loadFixtures, runParity, formatReport } from "./run.mjs";
 * const cases = await loadFixtures(new URL("./fixtures/", import.meta.url));
 * const cpu = await runParity(torch, cases, { device: "cpu" });
 * console.log(formatReport({ cpu }));
 * ```
 */

import { callComposite } from "./composites.mjs";
import { callSyntax } from "./syntax.mjs";
import { callConv } from "./conv.mjs";
import { callKernel } from "./kernels.mjs";

/**
 * Reads `index.json` under `base` (a URL or URL string of the fixtures folder, with a trailing
 * slash) and every file it names; resolves to the concatenated list of cases. `read(url)` may be
 * given to fetch text some other way; by default http(s) URLs use `fetch` and file: URLs Node's fs.
 */
export async function loadFixtures(base, { read = readText, files } = {}) {
  const dir = new URL(base);
  const index = JSON.parse(await read(new URL("index.json", dir)));
  const names = files ?? index.files;
  const lists = await Promise.all(names.map(async (name) => JSON.parse(await read(new URL(name, dir)))));
  // The TS layer's composites (fixtures/ts/, own index; not for the native runner) unless `files`.
  if (!files) {
    const ts = new URL("ts/", dir);
    const tsIndex = await read(new URL("index.json", ts)).then(JSON.parse, () => null);
    if (tsIndex) lists.push(await loadFixtures(ts, { read, files: tsIndex.files }));
  }
  const cases = lists.flat();
  if (!files) {
    const derived = await read(new URL("sweep_inplace.json", dir)).then(JSON.parse, () => null);
    if (derived) cases.push(...inplaceCases(cases, derived), ...asyncCases(cases, derived.async));
    attachKnown(cases, JSON.parse(await read(new URL("known.json", dir))));
  }
  return cases;
}

/**
 * `known.json` (README: "Known failures") lists cases webtorch is known to fail, per backend, with
 * the reason: each listed case gets `known = {backends, reason}`. A name that matches no case is
 * an error, so the list cannot outlive its cases.
 */
function attachKnown(cases, known) {
  const byName = new Map(cases.map((c) => [c.name, c]));
  for (const k of known.cases) {
    const c = byName.get(k.name);
    if (!c) throw new Error(`known.json: no case named ${k.name}`);
    c.known = { backends: k.backends, reason: k.reason };
  }
}

/**
 * The in-place pass (README: The sweep): `derived` (fixtures/sweep_inplace.json, written by
 * gen.py) names each swept op's in-place form (`inplace`: op -> [method, kind]) and the sweep
 * cases to run it on, with PyTorch's outcome: `[name]` when the form writes the case's result into
 * a copy of the first input, `[name, type, class, message]` when PyTorch raises. Each becomes a
 * case `<name>/inplace` expecting that result (and the case's gradients) or that error.
 */
function inplaceCases(cases, derived) {
  const byName = new Map(cases.map((c) => [c.name, c]));
  const out = [];
  // The first case of each op and kind (a copy, a write through a view, an error, a view op)
  // runs on every backend; the others on the CPU only (`cpuOnly`): each is the same kernel as its
  // out-of-place case, which runs everywhere.
  const seen = new Set();
  for (const [name, type, cls, message] of derived.cases) {
    const c = byName.get(name);
    if (!c) throw new Error(`sweep_inplace.json: no case named ${name}`);
    const [method, kind] = derived.inplace[c.op];
    const self = c.inputs[0];
    // The write through a view of a base: a transposed or stepped view, not an expanded one
    // (whose elements share memory).
    const view = kind === "value" && (self.view ?? []).length > 0 && !self.view.some(([s]) => s === "expand");
    let d = { ...c, name: `${name}/inplace`, inplace: { method, kind, view } };
    if (type !== undefined) {
      const { out: _out, grad: _grad, ...rest } = d;
      d = { ...rest, inplace: { method, kind, view: false }, error: { type, class: cls, message } };
    }
    const key = `${c.op} ${type !== undefined ? "error" : `${kind} ${view}`}`;
    if (seen.has(key)) d.cpuOnly = true;
    seen.add(key);
    out.push(d);
  }
  return out;
}

/**
 * The async pass: each sweep case of an op with a Promise-returning form (`async`: op ->
 * function, `masked_select_async`) again as `<name>/async`, calling that form and awaiting it.
 */
function asyncCases(cases, forms) {
  return cases
    .filter((c) => forms?.[c.op] && c.name.includes("/sweep_"))
    .map((c) => ({ ...c, name: `${c.name}/async`, async: forms[c.op] }));
}

async function readText(url) {
  if (url.protocol === "file:") {
    const fs = await import(/* @vite-ignore */ "node:fs/promises");
    return fs.readFile(url, "utf8");
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return res.text();
}

/**
 * Whether `torch` has the autograd surface the gradient checks use: `requires_grad_()`,
 * `backward(gradient)` and `.grad` on tensors.
 */
export function hasAutograd(torch) {
  const proto = torch.Tensor?.prototype;
  return typeof proto?.backward === "function" && typeof proto?.requires_grad_ === "function";
}

/**
 * Runs `fixtures` (a list of cases) on `torch` (the webtorch module) with every tensor on
 * `device`. Resolves to `{ device, results: [{ name, op, dtype, ok, detail, grad, known }],
 * passed, failed, known, grads: { checked, failed, skipped, note } }`; `detail` says what differed ("" when ok).
 * A case with `grad` in its fixture also checks the gradients (a mismatch fails the case) when
 * `torch` has autograd ({@link hasAutograd}); without it those checks are skipped, counted in
 * `grads.skipped` and explained in `grads.note`. `result.grad` is "ok", "failed", "skipped" or
 * undefined (no gradient data, or the forward already failed). `grad: false` skips the gradient
 * checks on purpose. A case listed in known.json for `device` passes when it fails (`known` holds
 * what differed; `known` in the result counts them) and fails when it passes. `filter` (a RegExp or function of the case) selects cases;
 * `onResult(result)` is called as each finishes.
 */
export async function runParity(torch, fixtures, { device, filter, onResult, grad = true } = {}) {
  const results = [];
  const select =
    filter === undefined ? () => true : typeof filter === "function" ? filter : (c) => filter.test(c.name);
  const autograd = grad && hasAutograd(torch);
  const grads = { checked: 0, failed: 0, skipped: 0, note: "" };
  for (const c of fixtures) {
    if (!select(c) || (c.cpuOnly && device !== "cpu")) continue;
    const result = { name: c.name, op: c.op, dtype: caseDType(c), ok: false, detail: "" };
    const made = [];
    try {
      result.detail = await (c.inplace ? runInplace(torch, c, device, made) : runCase(torch, c, device, made));
      if (result.detail === "" && c.grad) {
        if (autograd) {
          result.grad = "failed"; // until runGrad says otherwise
          result.detail = await runGrad(torch, c, device, made);
          if (result.detail === "") result.grad = "ok";
        } else {
          result.grad = "skipped";
        }
      }
      result.ok = result.detail === "";
    } catch (e) {
      result.detail = `runner: ${describe(e)}`;
    } finally {
      for (const t of made) {
        try {
          t?.dispose?.();
        } catch (e) {
          result.ok = false;
          result.detail += `${result.detail ? "; " : ""}dispose threw ${describe(e)}`;
        }
      }
    }
    if (result.detail !== "") result.ok = false;
    if (c.known?.backends.includes(device)) {
      // A known failure must still fail (else the list is stale); its failure is not counted.
      if (result.ok) {
        result.ok = false;
        result.detail = `listed in known.json (${c.known.reason}) but passes on ${device}: remove it there`;
      } else {
        result.ok = true;
        result.known = result.detail;
        result.detail = "";
        result.grad = undefined;
      }
    }
    if (result.grad === "ok" || result.grad === "failed") grads.checked++;
    if (result.grad === "failed") grads.failed++;
    if (result.grad === "skipped") grads.skipped++;
    results.push(result);
    onResult?.(result);
  }
  if (grads.skipped > 0) {
    grads.note = grad
      ? `gradients not checked in ${grads.skipped} cases: this torch has no autograd (Tensor.prototype.backward / requires_grad_)`
      : `gradients not checked in ${grads.skipped} cases (grad: false)`;
  }
  const passed = results.filter((r) => r.ok).length;
  const known = results.filter((r) => r.known !== undefined).length;
  return { device, results, passed, failed: results.length - passed, known, grads };
}

/** The dtypes a case exercises, for the op × dtype view: its tensor inputs', else its output's. */
function caseDType(c) {
  const dts = [...new Set(c.inputs.filter((i) => !("scalar" in i)).map((i) => i.dtype))];
  return dts.length > 0 ? dts.join("+") : (c.out?.dtype ?? c.args.dtype ?? "-");
}

/** Runs one case; resolves to "" when it matches, else a description of the difference. */
async function runCase(torch, c, device, made) {
  let inputs;
  try {
    inputs = c.inputs.map((spec) => makeInput(torch, spec, device, made));
  } catch (e) {
    return `building inputs: ${describe(e)}`;
  }
  let out;
  try {
    out = await callOp(torch, c, inputs[0], inputs.slice(1), device);
    made.push(...(Array.isArray(out) ? out : [out]));
  } catch (e) {
    if (c.error) return checkError(torch, c.error, e);
    return `threw ${describe(e)}`;
  }
  if (c.error) {
    // WebGPU checks values (indices, class targets) on the device: the error comes with the
    // first read of the result, as CUDA's device-side asserts do; the CPU raises at the call.
    if (device !== "cpu") {
      try {
        for (const t of Array.isArray(out) ? out : [out]) await t.toArray();
      } catch (e) {
        return checkError(torch, c.error, e);
      }
    }
    return `expected ${c.error.class} "${c.error.message}", got a tensor of shape [${out?.shape}]`;
  }
  // A tuple result (`max(dim)`): `out` lists its tensors.
  if (Array.isArray(c.out)) {
    if (!Array.isArray(out) || out.length !== c.out.length) return `expected ${c.out.length} results`;
    for (let k = 0; k < out.length; k++) {
      const why = checkTensor(out[k], c.out[k], c.tol, await out[k].toArray());
      if (why) return `result ${k}: ${why}`;
    }
    return "";
  }
  return checkTensor(out, c.out, c.tol, await out.toArray());
}

/**
 * Checks a case's gradients (README: "Gradients"): the inputs again, each float32 base (after the
 * reshape, before the view steps) a leaf that requires grad; the op; `backward(upstream)`; then
 * each base's `.grad` against the fixture. Resolves to "" when they match.
 */
async function runGrad(torch, c, device, made) {
  const leaves = [];
  let inputs;
  try {
    inputs = c.inputs.map((spec) => makeInput(torch, spec, device, made, leaves));
  } catch (e) {
    return `grad: building inputs: ${describe(e)}`;
  }
  let out;
  try {
    if (c.inplace) {
      // The in-place form on a copy that is not a leaf: `y = x.mul(1); y.op_(...)`.
      const y = inputs[0].mul(1);
      made.push(y);
      inputs[0] = y;
      out = await callOp(inplaceTorch(torch, c.inplace.method), c, inplaceSelf(y, c.inplace.method), inputs.slice(1), device);
    } else {
      out = await callOp(torch, c, inputs[0], inputs.slice(1), device);
    }
    made.push(...(Array.isArray(out) ? out : [out]));
  } catch (e) {
    return `grad: forward threw ${describe(e)}`;
  }
  // A tuple result (`max(dim)`): the gradient flows from result 0, the values.
  if (Array.isArray(out)) out = out[0];
  try {
    const upstream = torch.tensor(c.grad.out.map(decode), { dtype: "float32", device });
    made.push(upstream);
    const shaped = upstream.reshape(out.shape);
    made.push(shaped);
    out.backward(shaped);
  } catch (e) {
    return `grad: backward threw ${describe(e)}`;
  }
  const { rtol, atol } = c.grad.tol;
  for (let k = 0; k < c.grad.inputs.length; k++) {
    const want = c.grad.inputs[k];
    if (want === null) continue; // no gradient expected (not float32, a scalar, or PyTorch's None)
    const g = leaves[k]?.grad;
    if (g === null || g === undefined) return `grad of input ${k}: none, want one`;
    made.push(g);
    const shape = Array.from(g.shape);
    if (!sameList(shape, c.inputs[k].shape)) return `grad of input ${k}: shape [${shape}], want [${c.inputs[k].shape}]`;
    const values = await g.toArray();
    if (values.length !== want.length) return `grad of input ${k}: ${values.length} values, want ${want.length}`;
    for (let i = 0; i < values.length; i++) {
      const w = Math.fround(decode(want[i]));
      if (!close(values[i], w, rtol, atol)) {
        return `grad of input ${k}: element ${i} got ${values[i]} want ${w} (rtol ${rtol}, atol ${atol})`;
      }
    }
  }
  return "";
}

/**
 * The op of case `c` on `self` (its first input) and `rest`, through the family dispatchers.
 * Ops whose output size depends on the values (`unique`, `nonzero`) resolve a promise.
 */
function callOp(torch, c, self, rest, device) {
  const inputs = self === undefined ? [] : [self, ...rest];
  if (c.async) torch = renamed(torch, c.op, c.async);
  const a = () => decodeDeep(c.args);
  return (
    callKernel(torch, c.op, a(), inputs) ??
    callConv(torch, c.op, a(), inputs) ??
    callComposite(torch, c.op, a(), inputs, device) ??
    callSyntax(torch, c.op, a(), inputs) ??
    call(torch, c, inputs, device)
  );
}

/**
 * `torch` as the dispatchers see it in the in-place pass: `torch.op(self, ...rest)` becomes
 * `torch.op_(self, ...rest)` where torch has that function, else `self.op_(...rest)`.
 */
function inplaceTorch(torch, method) {
  const op = method.slice(0, -1);
  return new Proxy(torch, {
    get(target, key) {
      if (key === "_C") return atenInplace(target._C, op, method);
      if (key !== op) return Reflect.get(target, key);
      const fn = typeof target[method] === "function" ? target[method] : null;
      return (self, ...rest) => (fn ? fn(unwrapSelf(self), ...rest) : unwrapSelf(self)[method](...rest));
    },
  });
}

/** `torch._C` with the ATen form of `op` (`aten_index_put`) replaced by its in-place form. */
function atenInplace(c, op, method) {
  const to = c?.[`aten_${method}`];
  if (typeof to !== "function") return c;
  return new Proxy(c, {
    get: (target, key) =>
      key === `aten_${op}` ? (self, ...rest) => to(unwrapSelf(self), ...rest) : Reflect.get(target, key),
  });
}

/** `torch` with its function `from` replaced by `to`. */
function renamed(torch, from, to) {
  return new Proxy(torch, { get: (target, key) => Reflect.get(target, key === from ? to : key) });
}

const SELF = Symbol("inplace self");

/** `self` as the dispatchers see it in the in-place pass: its method `op` is `op_`. */
function inplaceSelf(self, method) {
  const op = method.slice(0, -1);
  return new Proxy(self, {
    get(target, key) {
      if (key === SELF) return target;
      const v = Reflect.get(target, key === op ? method : key, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

function unwrapSelf(t) {
  return (typeof t === "object" && t?.[SELF]) || t;
}

/**
 * An in-place case (`c.inplace`, derived by inplaceCases): the method on a copy of the first
 * input must return that copy, holding the out-of-place case's result; with `view`, the first
 * input's view steps are taken of a base and the method writes through them: the view holds the
 * result, the base's elements under the view changed to it and the others kept. Kind `view`
 * (`t_`, `squeeze_`): the copy's shape, strides and values are the out-of-place case's.
 */
async function runInplace(torch, c, device, made) {
  let inputs;
  try {
    inputs = c.inputs.map((spec) => makeInput(torch, spec, device, made));
  } catch (e) {
    return `building inputs: ${describe(e)}`;
  }
  const rest = inputs.slice(1);
  const run = async (self) => {
    const ret = await callOp(inplaceTorch(torch, c.inplace.method), c, inplaceSelf(self, c.inplace.method), rest, device);
    made.push(ret);
    if (unwrapSelf(ret) !== self) return `${c.inplace.method} did not return its input`;
    return checkTensor(self, c.out, c.tol, await self.toArray());
  };
  let why;
  try {
    const copy = inputs[0].clone();
    made.push(copy);
    why = await run(copy);
    if (why === "" && c.inplace.view) {
      const spec = c.inputs[0];
      const base = makeInput(torch, { ...spec, view: [] }, device, made);
      const view = makeInput(torch, spec, device, made, undefined, base);
      why = await run(view);
      if (why !== "") return `through a view: ${why}`;
      // Where each element of the view lives in the base: the view steps of an index tensor.
      const n = spec.data.length;
      const pos = makeInput(torch, { data: [...Array(n).keys()], dtype: "int32", shape: spec.shape, view: spec.view }, device, made);
      const at = await pos.toArray();
      const want = spec.data.map(decode);
      const got = await view.toArray();
      at.forEach((p, i) => (want[p] = got[i]));
      const baseNow = await base.toArray();
      const float = ["float32", "float16", "bfloat16", "float64"].includes(spec.dtype);
      const bad = baseNow.findIndex((v, i) => !close(v, float ? Math.fround(want[i]) : want[i], 0, 0));
      if (bad >= 0) return `through a view: base element ${bad} is ${baseNow[bad]}, want ${want[bad]}`;
    }
  } catch (e) {
    if (c.error) return checkError(torch, c.error, e);
    return `threw ${describe(e)}`;
  }
  if (c.error) return `expected ${c.error.class} "${c.error.message}", got a result`;
  return why;
}

/**
 * A scalar operand, or a tensor built from its spec: data → reshape → view steps. With `leaves`
 * (the gradient check), a float32 base requires grad and is pushed there (`null` for the others).
 */
function makeInput(torch, spec, device, made, leaves, base) {
  if ("scalar" in spec) {
    leaves?.push(null);
    return decode(spec.scalar);
  }
  let t = base;
  if (t === undefined) {
    t = torch.tensor(spec.data.map(decode), { dtype: spec.dtype, device });
    made.push(t);
    t = t.reshape(spec.shape);
    made.push(t);
  }
  if (leaves) {
    if (spec.dtype === "float32") {
      t.requires_grad_();
      leaves.push(t);
    } else {
      leaves.push(null);
    }
  }
  for (const [step, args] of spec.view ?? []) {
    if (step === "transpose") t = t.transpose(args[0], args[1]);
    else if (step === "permute") t = t.permute(args);
    else if (step === "expand") t = t.expand(args);
    else if (step === "t") t = t.t();
    else if (step === "slice") t = t.slice(args[0], args[1], args[2], args[3]);
    else throw new Error(`unknown view step ${step}`);
    made.push(t);
  }
  return t;
}

/** The webtorch call a case stands for; mirrors `call()` in tests/parity/fixture.py. */
function call(torch, c, inputs, device) {
  const { op } = c;
  const a = decodeDeep(c.args);
  const opts = { device, ...(a.dtype !== undefined && { dtype: a.dtype }) };
  const [x, y] = inputs;
  switch (op) {
    case "tensor":
    case "as_tensor":
      return torch[op](a.data, opts);
    case "zeros":
    case "ones":
      return torch[op](a.shape, opts);
    case "full":
      return torch.full(a.shape, a.fill_value, opts);
    case "arange":
      return torch.arange(...["start", "end", "step"].filter((k) => k in a).map((k) => a[k]), opts);
    case "sum":
    case "mean": {
      const dim = a.dim ?? a.dims;
      if (dim === undefined && a.keepdim === undefined) return x[op]();
      return x[op]({ ...(dim !== undefined && { dim }), ...(a.keepdim !== undefined && { keepdim: a.keepdim }) });
    }
    case "matmul":
      return x.matmul(y);
    case "reshape":
    case "view":
    case "expand":
      return x[op](a.shape);
    case "transpose":
      return x.transpose(a.dim0, a.dim1);
    case "permute":
      return x.permute(a.dims);
    case "t":
    case "contiguous":
      return x[op]();
    case "to":
      return x.to(a.dtype);
  }
  // Every other op is an elementwise op-table row, called the same way whatever its name (as the
  // Rust runner does through `Op::by_name`): one operand → `x.op()`, two → `x.op(y)`.
  if (inputs.length === 1 && typeof x === "object") {
    if (typeof x[op] !== "function") throw new Error(`Tensor.${op} is not a method`);
    return x[op]();
  }
  if (inputs.length === 2) {
    // A scalar first operand is Python's reflected operator (`2 - t`): torch.sub(2, t).
    if (typeof x !== "object") {
      if (typeof torch[op] !== "function") throw new Error(`torch.${op} is not a function`);
      return torch[op](x, y);
    }
    if (typeof x[op] !== "function") throw new Error(`Tensor.${op} is not a method`);
    return a.alpha !== undefined ? x[op](y, { alpha: a.alpha }) : x[op](y);
  }
  throw new Error(`unknown op ${op}`);
}

/** Compares a thrown error with the expected `{ type, class, message }`. */
function checkError(torch, expected, e) {
  const cls = torch[expected.class];
  const problems = [];
  if (typeof cls !== "function") problems.push(`torch.${expected.class} does not exist`);
  else if (!(e instanceof cls)) problems.push(`class ${e?.name ?? typeof e}, expected ${expected.class}`);
  if (e?.message !== expected.message) problems.push(`message "${e?.message}", expected "${expected.message}"`);
  return problems.join("; ");
}

/** Compares shape, dtype and values (NaN matches NaN; infinities must match exactly). */
function checkTensor(out, expected, tol, values) {
  const shape = Array.from(out.shape);
  if (!sameList(shape, expected.shape)) return `shape [${shape}], expected [${expected.shape}]`;
  if (out.dtype !== expected.dtype) return `dtype ${out.dtype}, expected ${expected.dtype}`;
  if (values.length !== expected.data.length) {
    return `${values.length} values read, expected ${expected.data.length}`;
  }
  const { rtol, atol } = tol;
  const float = ["float32", "float16", "bfloat16"].includes(expected.dtype);
  const bad = [];
  let worst = 0;
  for (let i = 0; i < values.length; i++) {
    // Fixtures hold float32 values as their shortest decimals: round back to float32 first.
    const want = float ? Math.fround(decode(expected.data[i])) : decode(expected.data[i]);
    const got = values[i];
    if (close(got, want, rtol, atol)) continue;
    bad.push(i);
    worst = Math.max(worst, Number.isFinite(got - want) ? Math.abs(got - want) : Infinity);
  }
  if (bad.length === 0) return "";
  const shown = bad
    .slice(0, 4)
    .map((i) => `[${i}] ${values[i]} vs ${decode(expected.data[i])}`)
    .join(", ");
  return `${bad.length}/${values.length} values differ (rtol ${rtol}, atol ${atol}, worst |diff| ${worst}): ${shown}${bad.length > 4 ? ", …" : ""}`;
}

function close(got, want, rtol, atol) {
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (!Number.isFinite(want)) return got === want;
  return Number.isFinite(got) && Math.abs(got - want) <= atol + rtol * Math.abs(want);
}

function sameList(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** "nan" / "inf" / "-inf" → numbers; anything else as is. */
function decode(v) {
  if (v === "nan") return NaN;
  if (v === "inf") return Infinity;
  if (v === "-inf") return -Infinity;
  return v;
}

/** decode() through arrays and objects, leaving `dtype` names alone. */
function decodeDeep(v, key) {
  if (key === "dtype") return v;
  if (Array.isArray(v)) return v.map((x) => decodeDeep(x));
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decodeDeep(x, k)]));
  }
  return decode(v);
}

function describe(e) {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/**
 * A markdown report: one row per op (or op × dtype with `byDType`), one column per backend, each
 * cell "passed/total" (bold when something failed), then the failing cases with their details
 * (at most `maxFailures` per backend). `resultsByBackend` maps a backend name to what
 * {@link runParity} returned.
 */
export function formatReport(resultsByBackend, { byDType = false, maxFailures = 50 } = {}) {
  const backends = Object.keys(resultsByBackend);
  const rowKey = (r) => (byDType ? `${r.op} | ${r.dtype}` : r.op);
  const rows = new Map(); // key -> backend -> [passed, total]
  for (const b of backends) {
    for (const r of resultsByBackend[b].results) {
      const key = rowKey(r);
      if (!rows.has(key)) rows.set(key, {});
      const cell = (rows.get(key)[b] ??= [0, 0]);
      cell[0] += r.ok ? 1 : 0;
      cell[1] += 1;
    }
  }
  const fmt = (cell) => (cell ? (cell[0] === cell[1] ? `${cell[0]}/${cell[1]}` : `**${cell[0]}/${cell[1]}**`) : "–");
  const head = byDType ? ["op", "dtype", ...backends] : ["op", ...backends];
  const lines = [`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`];
  for (const [key, cells] of rows) lines.push(`| ${key} | ${backends.map((b) => fmt(cells[b])).join(" | ")} |`);
  const totals = backends.map((b) => {
    const { passed, failed } = resultsByBackend[b];
    return fmt([passed, passed + failed]);
  });
  lines.push(`| **total** |${byDType ? " |" : ""} ${totals.join(" | ")} |`);
  const gradLines = backends
    .map((b) => [b, resultsByBackend[b].grads])
    .filter(([, g]) => g && (g.checked > 0 || g.skipped > 0))
    .map(([b, g]) => `- ${b}: gradients checked in ${g.checked} cases, ${g.failed} failed${g.note ? `; ${g.note}` : ""}`);
  if (gradLines.length > 0) lines.push("", ...gradLines);
  for (const b of backends) {
    const failures = resultsByBackend[b].results.filter((r) => !r.ok);
    if (failures.length === 0) continue;
    lines.push("", `### Failures on ${b} (${failures.length})`, "");
    for (const r of failures.slice(0, maxFailures)) lines.push(`- \`${r.name}\`: ${r.detail.replaceAll("\n", " ")}`);
    if (failures.length > maxFailures) lines.push(`- … and ${failures.length - maxFailures} more`);
  }
  for (const b of backends) {
    const known = resultsByBackend[b].results.filter((r) => r.known !== undefined);
    if (known.length === 0) continue;
    lines.push("", `### Known failures on ${b} (${known.length}, listed in known.json)`, "");
    for (const r of known.slice(0, maxFailures)) lines.push(`- \`${r.name}\`: ${r.known.replaceAll("\n", " ")}`);
    if (known.length > maxFailures) lines.push(`- … and ${known.length - maxFailures} more`);
  }
  return lines.join("\n") + "\n";
}
