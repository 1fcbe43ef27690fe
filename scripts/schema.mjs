// The op schema (schema/*.yaml) read and checked: each file is `namespace:` plus a list of `ops:`,
// each op a PyTorch-style signature and its facts (docs/ARCHITECTURE.md, "The op schema"). Used by
// the generator (scripts/gen-schema.mjs), the wrapper check (scripts/check-schema.mjs) and the
// coverage report; every consumer reads the schema through `loadSchema()` so that they agree.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import YAML from "yaml";

export const root = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
);
export const schemaDir = path.join(root, "schema");

/** The fields an op entry may have, each with what it holds. */
const FIELDS = {
  func: "the signature: name(Type arg, …, *, Type kw=default) -> Return; a list: PyTorch's overloads, tried in order",
  method: "also a Tensor method (true/false)",
  function:
    "also a function of its namespace (default true; false: a Tensor method only)",
  inplace: "has the in-place method name_ (true/false)",
  dtype: "the result dtype rule (DTYPE_RULES)",
  backward: "the backward: a rule name in src/autograd, 'composite', or 'none'",
  samples: "the sample inputs of the parity sweep (a sampler name)",
  tol: "tolerances {atol, rtol} when not the family's",
  values: "allowed values per argument: {arg: [v, …]}",
  value_message:
    "PyTorch's message for a value outside `values` ({name}, {value}, {allowed}): one, or {arg: message}",
  overloaded: "PyTorch reports a wrong union argument as 'invalid combination'",
  python: "written in Python in PyTorch (arity errors in Python's wording)",
  alias_of: "the op this name is an alias of",
  doc: "an op-table row's TSDoc, for its generated torch.* function (and method)",
  method_doc: "an op-table row's TSDoc for its Tensor method, where it differs from `doc`",
  options: "an op-table row's TS type of its keyword-only options (RoundOptions)",
  also_in:
    "other namespaces exporting the same function: [torch, nn.functional]",
  class:
    "a class of the namespace (nn.Linear, optim.SGD): the signature is its constructor's",
};

/** The result dtype rules (docs/dtypes.md): how an op's dtype follows from its inputs'. */
export const DTYPE_RULES = {
  same: "the (promoted) input dtype",
  float: "the promoted input dtype, integers and bool to the default float",
  bool: "bool",
  int64: "int64 (indices, counts)",
  promote: "PyTorch's type promotion of the tensor and number arguments",
  input: "the dtype of the first tensor argument",
  option: "the `dtype` argument, else the input's",
  loss: "the input's floating dtype (losses, reduced or not)",
  none: "no tensor result",
};

const KINDS = new Set([
  "Tensor",
  "Scalar",
  "int",
  "float",
  "bool",
  "str",
  "Dim",
  "ScalarType",
  "Device",
  "Generator",
  "Callable",
  "object",
  "any",
]);

class SchemaError extends Error {}

/** Parses one default literal of a signature: None, True, False, numbers, 'str', [..]. */
function literal(text, where) {
  const t = text.trim();
  if (t === "None") return null;
  if (t === "True") return true;
  if (t === "False") return false;
  if (t === "inf") return Infinity;
  if (t === "-inf") return -Infinity;
  if (/^-?\d+(\.\d*)?(e-?\d+)?$/.test(t)) return Number(t);
  if (/^'[^']*'$/.test(t) || /^"[^"]*"$/.test(t)) return t.slice(1, -1);
  if (t.startsWith("[") && t.endsWith("]")) {
    const inner = t.slice(1, -1).trim();
    return inner === "" ? [] : inner.split(",").map((x) => literal(x, where));
  }
  throw new SchemaError(`${where}: cannot read the default ${t}`);
}

/** Splits at top-level commas (not inside brackets or quotes). */
function splitTop(text) {
  const parts = [];
  let depth = 0;
  let quote = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "[" || c === "(") depth++;
    else if (c === "]" || c === ")") depth--;
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

/** Parses `name.overload(args) -> ret` into {name, overload, params, returns}. */
export function parseSignature(func, where) {
  const m =
    /^([A-Za-z_$][A-Za-z0-9_]*)(?:\.([A-Za-z0-9_]+))?\((.*)\)(?:\s*->\s*(.+))?$/s.exec(
      func.trim(),
    );
  if (!m) throw new SchemaError(`${where}: not a signature: ${func}`);
  const [, name, overload, body, returns] = m;
  const params = [];
  let kwOnly = false;
  for (const part of splitTop(body)) {
    if (part === "*") {
      kwOnly = true;
      continue;
    }
    const pm =
      /^([A-Za-z|\[\]\d]+)(\?)?(\.\.\.)?\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s*=\s*(.+))?$/s.exec(
        part,
      );
    if (!pm)
      throw new SchemaError(`${where}: cannot read the argument "${part}"`);
    const [, types, nullable, varargs, pname, def] = pm;
    // Each member of a union is a kind, or a list of a kind: `int[2]|str`, `int|int[]`.
    const kinds = [];
    const items = [];
    let list = 0;
    for (const member of types.split("|")) {
      const mm = /^([A-Za-z]+)(?:\[(\d*)\])?$/.exec(member);
      if (!mm || !KINDS.has(mm[1]))
        throw new SchemaError(`${where}: unknown type ${member} of ${pname}`);
      if (member.includes("[")) {
        const size = mm[2] ? Number(mm[2]) : -1;
        if (list !== 0 && list !== size)
          throw new SchemaError(`${where}: ${pname} has lists of two lengths`);
        list = size;
        items.push(mm[1]);
      } else kinds.push(mm[1]);
    }
    if (params.some((p) => p.name === pname))
      throw new SchemaError(`${where}: ${pname} twice`);
    const param = {
      name: pname,
      kinds,
      items,
      list,
      nullable: nullable === "?",
      varargs: varargs === "...",
      kwOnly,
      required: def === undefined,
    };
    if (def !== undefined) {
      param.default = literal(def, `${where} ${pname}`);
      if (param.default === null && !param.nullable && !kinds.includes("any"))
        throw new SchemaError(
          `${where}: ${pname} defaults to None but is not T?`,
        );
    } else if (params.some((p) => !p.required && !p.kwOnly) && !kwOnly) {
      throw new SchemaError(
        `${where}: ${pname} (required) follows an optional argument`,
      );
    }
    params.push(param);
  }
  return {
    name,
    overload: overload ?? null,
    params,
    returns: returns?.trim() ?? "",
  };
}

/**
 * Every op of the schema, checked: `[{key, namespace, name, params, method, inplace, dtype,
 * backward, samples, tol, values, …, file}]`, keyed by the public path (`div`,
 * `nn.functional.relu`, `special.erf`).
 */
export function loadSchema() {
  const files = fs
    .readdirSync(schemaDir)
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  const ops = [];
  const keys = new Map();
  for (const file of files) {
    const doc = YAML.parse(fs.readFileSync(path.join(schemaDir, file), "utf8"));
    const namespace = doc?.namespace;
    if (typeof namespace !== "string")
      throw new SchemaError(`schema/${file}: no namespace`);
    for (const [i, entry] of (doc.ops ?? []).entries()) {
      const where = `schema/${file} op ${i + 1}`;
      for (const field of Object.keys(entry))
        if (!(field in FIELDS))
          throw new SchemaError(`${where}: unknown field '${field}'`);
      const funcs = Array.isArray(entry.func) ? entry.func : [entry.func];
      if (funcs.length === 0 || funcs.some((f) => typeof f !== "string"))
        throw new SchemaError(`${where}: no func`);
      // Overloads (a list of signatures, as PyTorch's `arange(end)`, `arange(start, end, step)`):
      // one name; `params` is the last (the fullest), `overloads` all of them.
      const sigs = funcs.map((f) => parseSignature(f, where));
      const sig = sigs.at(-1);
      if (sigs.some((s) => s.name !== sig.name))
        throw new SchemaError(`${where}: overloads of two names`);
      const key = namespace === "torch" ? sig.name : `${namespace}.${sig.name}`;
      const at = `${where} (${key})`;
      if (keys.has(key))
        throw new SchemaError(`${at}: also declared in ${keys.get(key)}`);
      keys.set(key, where);
      const isClass = entry.class === true;
      // A class's constructor returns no tensor of its own: its dtype and backward default to none.
      if (entry.alias_of === undefined) {
        if (isClass) {
          entry.dtype ??= "none";
          entry.backward ??= "none";
        }
        if (isClass !== /^[A-Z]/.test(sig.name))
          throw new SchemaError(
            `${at}: a class's name is capitalized, a function's is not`,
          );
        if (!(entry.dtype in DTYPE_RULES))
          throw new SchemaError(
            `${at}: dtype must be one of ${Object.keys(DTYPE_RULES)}`,
          );
        if (typeof entry.backward !== "string")
          throw new SchemaError(
            `${at}: backward must name a rule, 'composite' or 'none'`,
          );
      }
      const values = entry.values ?? {};
      const allParams = sigs.flatMap((s) => s.params);
      for (const [arg, allowed] of Object.entries(values)) {
        const ps = allParams.filter((q) => q.name === arg);
        if (ps.length === 0)
          throw new SchemaError(`${at}: values for unknown argument ${arg}`);
        if (!Array.isArray(allowed))
          throw new SchemaError(`${at}: values.${arg} must be a list`);
        for (const p of ps) p.values = allowed;
      }
      const messages = entry.value_message ?? {};
      for (const p of allParams) {
        const m = typeof messages === "string" ? messages : messages[p.name];
        if (m !== undefined && p.values) p.message = m;
      }
      if (typeof messages === "object")
        for (const arg of Object.keys(messages))
          if (!values[arg])
            throw new SchemaError(
              `${at}: value_message for ${arg}, which has no values`,
            );
      ops.push({
        key,
        namespace,
        name: sig.name,
        overload: sig.overload,
        params: sig.params,
        overloads: sigs.length > 1 ? sigs.map((s) => s.params) : null,
        returns: sig.returns,
        method: entry.method === true,
        function: entry.function !== false,
        inplace: entry.inplace === true,
        dtype: entry.dtype ?? null,
        backward: entry.backward ?? null,
        samples: entry.samples ?? null,
        tol: entry.tol ?? null,
        aliasOf: entry.alias_of ?? null,
        alsoIn: entry.also_in ?? [],
        class: entry.class === true,
        python:
          entry.python ?? (namespace.startsWith("nn.") || entry.class === true),
        overloaded: entry.overloaded === true,
        file: `schema/${file}`,
        // An op-table row (schema/elementwise.yaml: `rows: true`): its TS lists, method type
        // and torch.* function are generated (scripts/gen-schema.mjs).
        row: doc.rows === true,
        doc: entry.doc ?? null,
        methodDoc: entry.method_doc ?? entry.doc ?? null,
        options: entry.options ?? null,
      });
    }
  }
  return ops;
}
