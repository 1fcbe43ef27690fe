// The schema's consistency check (make lint-ts, after make pkg): every op of schema/*.yaml has
// its public wrapper in each namespace it names, with the schema's parameters — the positional
// ones by name and in order, the keyword-only ones as fields of the trailing options object — and
// a Tensor method (and in-place method) where the schema says so; each overload of an entry (a
// `func` list) is one of the wrapper's signatures. Every public function of torch.*,
// torch.nn.functional and torch.special must have its entry.
// Then, on the built package, that each wrapper parses through its entry before anything else:
// called with only an unknown keyword option it must raise the parser's "unexpected keyword" (an
// overloaded entry: that, or PyTorch's "invalid combination of arguments").
//   node scripts/check-schema.mjs
import path from "node:path";
import ts from "typescript";
import { loadSchema, root } from "./schema.mjs";

// Namespaces whose every public function parses through the schema.
const COMPLETE = ["torch", "nn.functional", "special"];

const dts = path.join(root, "pkg/dist/index.d.ts");
const program = ts.createProgram([dts], { strict: true, skipLibCheck: true });
const checker = program.getTypeChecker();
const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(dts));

const resolve = (sym) =>
  sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;

/** The exported functions of a namespace path ("torch", "nn.functional"): name → symbol. */
function namespaceFunctions(ns) {
  let exports = checker.getExportsOfModule(moduleSymbol);
  if (ns !== "torch") {
    for (const part of ns.split(".")) {
      const sym = exports.find((e) => e.name === part);
      if (!sym) return new Map();
      exports = checker.getExportsOfModule(resolve(sym));
    }
  }
  const out = new Map();
  for (const e of exports) {
    const sym = resolve(e);
    const decl = sym.valueDeclaration ?? sym.declarations?.[0];
    if (!decl || /^[A-Z]/.test(e.name)) continue;
    const type = checker.getTypeOfSymbolAtLocation(sym, decl);
    if (type.getCallSignatures().length > 0)
      out.set(e.name, { sym, type, decl });
  }
  return out;
}

/** The exported class `name` of a namespace path ("nn", "optim"), or null. */
function namespaceClass(ns, name) {
  let exports = checker.getExportsOfModule(moduleSymbol);
  for (const part of ns === "torch" ? [] : ns.split(".")) {
    const sym = exports.find((e) => e.name === part);
    if (!sym) return null;
    exports = checker.getExportsOfModule(resolve(sym));
  }
  const e = exports.find((x) => x.name === name);
  if (!e) return null;
  const sym = resolve(e);
  const decl = sym.valueDeclaration ?? sym.declarations?.[0];
  if (!decl) return null;
  const type = checker.getTypeOfSymbolAtLocation(sym, decl);
  const sigs = type.getConstructSignatures();
  return sigs.length > 0 ? { sigs, decl } : null;
}

/** A signature's parameters: positional names, and the options object's field names if any. */
function shape(sig, decl) {
  // A rest parameter of a labelled tuple type (`...extra: [options?: AlphaOptions]`) counts as
  // its elements.
  const params = [];
  for (const p of sig.getParameters()) {
    const type = checker.getTypeOfSymbolAtLocation(p, decl);
    const labels = type.target?.labeledElementDeclarations;
    if (p.valueDeclaration?.dotDotDotToken && labels)
      labels.forEach((l, i) =>
        params.push({
          name: l.name.text,
          type: checker.getTypeArguments(type)[i],
        }),
      );
    else params.push({ name: p.name, type });
  }
  const names = params.map((p) => p.name);
  const last = params.at(-1);
  let options = null;
  // A varargs parameter whose tuples may end in an options object (`...size: SizeArgs<O>`, the
  // sizes then `options`): the options are that element's fields.
  const rest = sig.getParameters().at(-1)?.valueDeclaration;
  if (rest?.dotDotDotToken && last.name === rest.name.text) {
    const type = checker.getTypeOfSymbolAtLocation(
      sig.getParameters().at(-1),
      decl,
    );
    const base = checker.getBaseConstraintOfType(type) ?? type;
    for (const t of base.isUnion() ? base.types : [base]) {
      const labels = t.target?.labeledElementDeclarations ?? [];
      const at = labels.findIndex((l) => l?.name.text === "options");
      if (at < 0) continue;
      const o = checker.getNonNullableType(checker.getTypeArguments(t)[at]);
      options = o.getProperties().map((p) => p.name);
    }
    if (options !== null) return { names, options };
  }
  if (last && last.name === "options") {
    const t = checker.getNonNullableType(last.type);
    options = t.getProperties().map((p) => p.name);
    names.pop();
  }
  return { names, options };
}

/** Why no signature of `sigs` takes the entry's parameters (each overload's), or null. */
function mismatch(op, sigs, decl, skipFirst) {
  for (const params of op.overloads ?? [op.params]) {
    const why = mismatchOne(params, sigs, decl, skipFirst);
    if (why)
      return op.overloads
        ? `(${params.map((p) => p.name).join(", ")}): ${why}`
        : why;
  }
  return null;
}

function mismatchOne(all, sigs, decl, skipFirst) {
  const params = skipFirst ? all.slice(1) : all;
  const positional = params.filter((p) => !p.kwOnly).map((p) => p.name);
  const keywords = params.filter((p) => p.kwOnly).map((p) => p.name);
  const problems = [];
  for (const sig of sigs) {
    const { names, options } = shape(sig, decl);
    const why = [];
    if (names.join() !== positional.join())
      why.push(
        `parameters (${names.join(", ")}) are not the schema's (${positional.join(", ")})`,
      );
    const missing = keywords.filter((k) => !(options ?? []).includes(k));
    if (missing.length > 0) why.push(`options lack ${missing.join(", ")}`);
    const extra = (options ?? []).filter(
      (k) => !params.some((p) => p.name === k),
    );
    if (extra.length > 0)
      why.push(`options have ${extra.join(", ")}, not in the schema`);
    if (why.length === 0) return null;
    problems.push(why.join("; "));
  }
  return problems[0];
}

const ops = loadSchema();
const classes = ops.filter((op) => op.class).length;
const errors = [];
const covered = new Map();
const tensorType = (() => {
  const sym = checker
    .getExportsOfModule(moduleSymbol)
    .find((e) => e.name === "Tensor");
  return checker.getDeclaredTypeOfSymbol(resolve(sym));
})();
const fnsByNs = new Map();
const functionsOf = (ns) => {
  if (!fnsByNs.has(ns)) fnsByNs.set(ns, namespaceFunctions(ns));
  return fnsByNs.get(ns);
};

for (const op of ops) {
  if (op.class) {
    // A class: its constructor takes the schema's parameters, as a function would.
    const where = `torch.${op.namespace}.${op.name}`;
    const cls = namespaceClass(op.namespace, op.name);
    if (!cls) {
      errors.push(`${op.file}: ${where} is not an exported class`);
      continue;
    }
    const why = mismatch(op, cls.sigs, cls.decl, false);
    if (why) errors.push(`${op.file}: new ${where}: ${why}`);
    continue;
  }
  for (const ns of op.function ? [op.namespace, ...op.alsoIn] : []) {
    const fn = functionsOf(ns).get(op.name);
    const where = `${ns === "torch" ? "torch" : `torch.${ns}`}.${op.name}`;
    if (!fn) {
      errors.push(`${op.file}: ${where} is not exported`);
      continue;
    }
    if (!covered.has(ns)) covered.set(ns, new Set());
    covered.get(ns).add(op.name);
    if (op.aliasOf) continue;
    const why = mismatch(op, fn.type.getCallSignatures(), fn.decl, false);
    if (why) errors.push(`${op.file}: ${where}: ${why}`);
  }
  const methods = [];
  if (op.method) methods.push(op.name);
  if (op.inplace) methods.push(`${op.name}_`);
  for (const m of methods) {
    const prop = tensorType.getProperty(m);
    if (!prop) {
      errors.push(`${op.file}: Tensor.${m} is not declared`);
      continue;
    }
    const decl = prop.valueDeclaration ?? prop.declarations?.[0];
    const type = checker.getTypeOfSymbolAtLocation(prop, decl);
    const why = mismatch(op, type.getCallSignatures(), decl, true);
    if (why) errors.push(`${op.file}: Tensor.${m}: ${why}`);
  }
}

for (const ns of COMPLETE) {
  for (const name of functionsOf(ns).keys()) {
    if (covered.get(ns)?.has(name)) continue;
    const where = ns === "torch" ? "torch" : `torch.${ns}`;
    errors.push(`${where}.${name} has no schema entry (schema/*.yaml)`);
  }
}

/** Each wrapper, called with an unknown keyword only, must raise the parser's error for it. */
async function probeWrappers() {
  const torch = await import(path.join(root, "pkg/dist/index.js"));
  await torch.init({ device: "cpu" });
  const probe = { __schema_probe__: 1 };
  const expect = "got an unexpected keyword argument '__schema_probe__'";
  const combination = "received an invalid combination of arguments";
  // A torch.* function of no arguments bound in C: CPython's wording.
  const noKeywords = "takes no keyword arguments";
  const nsObject = (ns) =>
    ns === "torch" ? torch : ns.split(".").reduce((o, k) => o?.[k], torch);
  const calls = [];
  for (const op of ops) {
    // Leading `any` parameters (an optimizer's params, ModuleDict's modules, Sequential's named
    // form, a dataset) take a plain object as their value: each gets a placeholder list, so that
    // the probe is read as the options.
    const lead = [];
    for (const p of op.params) {
      if (p.kwOnly || !p.kinds.includes("any")) break;
      lead.push([]);
      if (p.varargs) break;
    }
    if (op.class) {
      const Cls = nsObject(op.namespace)?.[op.name];
      if (typeof Cls === "function")
        calls.push([
          `new ${op.namespace}.${op.name}`,
          () => new Cls(...lead, probe),
        ]);
      continue;
    }
    for (const ns of op.function ? [op.namespace, ...op.alsoIn] : []) {
      const fn = nsObject(ns)?.[op.name];
      if (typeof fn === "function")
        calls.push([
          `${ns}.${op.name}`,
          () => fn(...lead, probe),
          op.overloads
            ? [combination, expect]
            : op.params.length === 0 && !op.python
              ? [noKeywords]
              : [expect],
        ]);
    }
    const x = torch.ones(2, 3);
    if (op.method) calls.push([`Tensor.${op.name}`, () => x[op.name](probe)]);
    if (op.inplace)
      calls.push([`Tensor.${op.name}_`, () => x.clone()[`${op.name}_`](probe)]);
  }
  for (const [what, call, wanted = [expect]] of calls) {
    try {
      call();
      errors.push(`${what} accepted an unknown keyword option`);
    } catch (e) {
      if (!wanted.some((w) => String(e?.message).includes(w)))
        errors.push(
          `${what} does not parse through its schema entry first: ${e?.message}`,
        );
    }
  }
}
await probeWrappers();

if (errors.length > 0) {
  console.error(
    `schema check: ${errors.length} problems\n  ${errors.join("\n  ")}`,
  );
  process.exit(1);
} else {
  console.log(
    `schema check: ${ops.length - classes} ops and ${classes} classes match their wrappers; every public function of ${COMPLETE.join(", ")} has its entry`,
  );
}
