/**
 * Tensor expressions: `torch.$("relu(x @ w + b)", { x, w, b })` evaluates a small expression
 * language over named tensors and numbers as the equivalent webtorch ops, so the result is lazy,
 * fuses and differentiates exactly as the hand-written chain would. With literal shapes the
 * expression is also parsed and checked by the type checker (types.ts).
 *
 * The language is Python's arithmetic as PyTorch code writes it: `+ - * / // % @ **`, unary `-`,
 * comparisons `< <= > >= == !=`, parentheses, numbers (and `true`, `false`, `inf`, `nan`), `x.T`/`x.mT`, and calls of tensor
 * functions (`relu(x)`, `softmax(x, -1)`, `sum(x, dim=-1, keepdim=true)`, `where(c, a, b)`), each
 * the `Tensor` method of that name. Precedence and associativity are Python's (`-x**2` is
 * `-(x**2)`, `2**3**2` is `2**(3**2)`, `@` binds like `*`).
 *
 * It is parsed by hand (a tokenizer and a recursive-descent parser, never `eval` or `Function`)
 * and only names from a fixed list can be called.
 *
 * @module
 */

import { args } from "../schema/index.js";
import type { ShapeOf, CheckOf } from "../shapes.js";
import type { ExprDType, ExprShape, ExprEnv } from "./types.js";
import { ExpressionError, TorchError } from "../errors.js";
import { scope } from "../lifetime.js";
import { where } from "../ops/conditional.js";
import { BINARY_OPS, UNARY_OPS } from "../ops/opnames.js";
import { Tensor } from "../tensor/tensor.js";
import * as ops from "../ops/ops.js";

/** A value in an expression: a tensor or a number (booleans count as 1 and 0). */
export type ExprValue = Tensor | number | boolean;

/** Functions an expression may call (each a Tensor method of that name), besides `where`. */
const FUNCTIONS = new Set<string>([
  ...UNARY_OPS,
  ...BINARY_OPS,
  ...["sum", "mean", "prod", "amax", "amin", "logsumexp", "std", "var"],
  ...["softmax", "log_softmax", "matmul", "mm", "bmm", "clamp", "clamp_min"],
  ...["clamp_max", "transpose", "reshape", "flatten", "unsqueeze", "squeeze"],
  ...["t", "gelu", "silu", "mish", "softplus", "elu", "leaky_relu", "tril"],
  ...[
    "triu",
    "cumsum",
    "square",
    "rsqrt",
    "reciprocal",
    "erf",
    "expm1",
    "log1p",
  ],
]);

/**
 * Parameter names of the functions whose methods take positional arguments only (the others
 * take PyTorch's keywords as an options object: `sum(x, dim=-1, keepdim=true)`).
 */
const POSITIONAL: Record<string, string[]> = {
  softmax: ["dim"],
  log_softmax: ["dim"],
  cumsum: ["dim"],
  transpose: ["dim0", "dim1"],
  unsqueeze: ["dim"],
  squeeze: ["dim"],
  flatten: ["start_dim", "end_dim"],
  clamp: ["min", "max"],
  clamp_min: ["min"],
  clamp_max: ["max"],
  tril: ["diagonal"],
  triu: ["diagonal"],
  leaky_relu: ["negative_slope"],
  elu: ["alpha"],
  softplus: ["beta", "threshold"],
};

type Token =
  | { kind: "num"; value: number; at: number }
  | { kind: "name"; value: string; at: number }
  | { kind: "op"; value: string; at: number }
  | { kind: "end"; at: number };

const OPS = [
  "**", "//", "<=", ">=", "==", "!=",
  "+", "-", "*", "/", "%", "@", "<", ">", "(", ")", ",", "=", ".",
]; // prettier-ignore
const NUMBER = /(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const SPACE = /\s+/y;
const MAX_DEPTH = 200;

/** Matches `re` (sticky) at `i`; the matched text or null. */
function at(re: RegExp, src: string, i: number): string | null {
  re.lastIndex = i;
  const m = re.exec(src);
  return m === null ? null : m[0];
}

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const space = at(SPACE, src, i);
    if (space !== null) {
      i += space.length;
      continue;
    }
    const num = at(NUMBER, src, i);
    if (num !== null) {
      out.push({ kind: "num", value: Number(num), at: i });
      i += num.length;
      continue;
    }
    const name = at(NAME, src, i);
    if (name !== null) {
      out.push({ kind: "name", value: name, at: i });
      i += name.length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (op === undefined)
      throw new ExpressionError(
        `$(): unexpected character '${src[i]}' at position ${i} in "${src}"`,
      );
    out.push({ kind: "op", value: op, at: i });
    i += op.length;
  }
  out.push({ kind: "end", at: src.length });
  return out;
}

/** The syntax tree. */
type Node =
  | { kind: "num"; value: number }
  | { kind: "name"; name: string; at: number }
  | { kind: "unary"; op: string; arg: Node }
  | { kind: "binary"; op: string; left: Node; right: Node; at: number }
  | { kind: "attr"; name: "T" | "mT"; arg: Node }
  | {
      kind: "call";
      name: string;
      args: Node[];
      kwargs: [string, Node][];
      at: number;
    };

const CMP = ["<", "<=", ">", ">=", "==", "!="];
const ADD = ["+", "-"];
const MUL = ["*", "/", "//", "%", "@"];

class Parser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly src: string,
    private readonly toks: Token[],
  ) {}

  private peek(): Token {
    return this.toks[this.i]!;
  }
  private isOp(...ops: string[]): boolean {
    const t = this.peek();
    return t.kind === "op" && ops.includes(t.value);
  }
  private fail(what: string): never {
    const t = this.peek();
    const got = t.kind === "end" ? "the end" : `'${t.value}'`;
    throw new ExpressionError(
      `$(): expected ${what} at position ${t.at} in "${this.src}", got ${got}`,
    );
  }
  private expect(op: string): void {
    if (!this.isOp(op)) this.fail(`'${op}'`);
    this.i++;
  }

  parse(): Node {
    const n = this.comparison();
    if (this.peek().kind !== "end") this.fail("an operator");
    return n;
  }

  private comparison(): Node {
    let left = this.additive();
    while (this.isOp(...CMP)) {
      const t = this.toks[this.i++] as { value: string; at: number };
      left = {
        kind: "binary",
        op: t.value,
        left,
        right: this.additive(),
        at: t.at,
      };
    }
    return left;
  }
  private additive(): Node {
    let left = this.multiplicative();
    while (this.isOp(...ADD)) {
      const t = this.toks[this.i++] as { value: string; at: number };
      left = {
        kind: "binary",
        op: t.value,
        left,
        right: this.multiplicative(),
        at: t.at,
      };
    }
    return left;
  }
  private multiplicative(): Node {
    let left = this.unary();
    while (this.isOp(...MUL)) {
      const t = this.toks[this.i++] as { value: string; at: number };
      left = {
        kind: "binary",
        op: t.value,
        left,
        right: this.unary(),
        at: t.at,
      };
    }
    return left;
  }
  private unary(): Node {
    if (this.isOp("-", "+")) {
      const op = (this.toks[this.i++] as { value: string }).value;
      return this.nested(() => ({ kind: "unary", op, arg: this.unary() }));
    }
    return this.power();
  }
  private power(): Node {
    const base = this.postfix();
    if (!this.isOp("**")) return base;
    const t = this.toks[this.i++] as { value: string; at: number };
    // Right-associative, and the exponent may carry a sign: 2 ** -x.
    return this.nested(() => ({
      kind: "binary",
      op: "**",
      left: base,
      right: this.unary(),
      at: t.at,
    }));
  }
  private postfix(): Node {
    let n = this.primary();
    while (this.isOp(".")) {
      this.i++;
      const t = this.peek();
      if (t.kind !== "name" || (t.value !== "T" && t.value !== "mT"))
        this.fail("'T' or 'mT' after '.'");
      this.i++;
      n = { kind: "attr", name: t.value as "T" | "mT", arg: n };
    }
    return n;
  }
  private nested<T>(fn: () => T): T {
    if (++this.depth > MAX_DEPTH)
      throw new ExpressionError(
        `$(): expression nested more than ${MAX_DEPTH} levels deep`,
      );
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }
  private primary(): Node {
    const t = this.peek();
    if (t.kind === "num") {
      this.i++;
      return { kind: "num", value: t.value };
    }
    if (t.kind === "name") {
      this.i++;
      if (!this.isOp("(")) return { kind: "name", name: t.value, at: t.at };
      this.i++;
      return this.nested(() => this.call(t.value, t.at));
    }
    if (this.isOp("(")) {
      this.i++;
      const n = this.nested(() => this.comparison());
      this.expect(")");
      return n;
    }
    return this.fail("a number, a name or '('");
  }
  private call(name: string, at: number): Node {
    const args: Node[] = [];
    const kwargs: [string, Node][] = [];
    while (!this.isOp(")")) {
      const t = this.peek();
      const next = this.toks[this.i + 1]!;
      if (t.kind === "name" && next.kind === "op" && next.value === "=") {
        this.i += 2;
        kwargs.push([t.value, this.comparison()]);
      } else {
        if (kwargs.length > 0)
          this.fail("a keyword argument (positional after keyword)");
        args.push(this.comparison());
      }
      if (!this.isOp(")")) this.expect(",");
    }
    this.i++;
    return { kind: "call", name, args, kwargs, at };
  }
}

const BINARY: Record<string, string> = {
  "+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floor_divide", "%": "remainder",
  "**": "pow", "@": "matmul", "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq",
  "!=": "ne",
}; // prettier-ignore

/** Names every expression knows (a value of the same name wins). */
const CONSTANTS: Record<string, boolean | number> = {
  true: true,
  false: false,
  True: true,
  False: false,
  inf: Infinity,
  nan: NaN,
};

type Method = (...args: unknown[]) => Tensor;
const method = (t: Tensor, name: string): Method =>
  (Tensor.prototype as unknown as Record<string, Method>)[name]!.bind(t);

/** Python's value of a number op (both operands numbers). */
function numeric(op: string, a: number, b: number): number | boolean {
  switch (op) {
    case "+": return a + b;
    case "-": return a - b;
    case "*": return a * b;
    case "/": return a / b;
    case "//": return Math.floor(a / b);
    case "%": return a - b * Math.floor(a / b);
    case "**": return a ** b;
    case "<": return a < b;
    case "<=": return a <= b;
    case ">": return a > b;
    case ">=": return a >= b;
    case "==": return a === b;
    default: return a !== b;
  }
} // prettier-ignore

function evaluate(
  src: string,
  n: Node,
  env: Readonly<Record<string, unknown>>,
): ExprValue {
  const ev = (m: Node) => evaluate(src, m, env);
  switch (n.kind) {
    case "num":
      return n.value;
    case "name": {
      if (!Object.hasOwn(env, n.name) && Object.hasOwn(CONSTANTS, n.name))
        return CONSTANTS[n.name]!;
      if (!Object.hasOwn(env, n.name))
        throw new ExpressionError(
          `$(): name '${n.name}' is not defined (at position ${n.at} in "${src}"; given: ${Object.keys(env).join(", ") || "none"})`,
        );
      const v = env[n.name];
      if (
        !(v instanceof Tensor) &&
        typeof v !== "number" &&
        typeof v !== "boolean"
      )
        throw new ExpressionError(
          `$(): '${n.name}' must be a Tensor or a number, not ${v === null ? "null" : typeof v}`,
        );
      return v;
    }
    case "unary": {
      const v = ev(n.arg);
      if (n.op === "+") return v;
      return v instanceof Tensor ? v.neg() : -Number(v);
    }
    case "attr": {
      const v = ev(n.arg);
      if (!(v instanceof Tensor))
        throw new ExpressionError(`$(): '.${n.name}' of a number in "${src}"`);
      return n.name === "T" ? v.T : v.mT;
    }
    case "binary": {
      const a = ev(n.left);
      const b = ev(n.right);
      const name = BINARY[n.op]!;
      if (n.op === "@") {
        if (!(a instanceof Tensor) || !(b instanceof Tensor))
          throw new ExpressionError(
            `$(): '@' needs two tensors (at position ${n.at} in "${src}")`,
          );
        return a.matmul(b);
      }
      if (a instanceof Tensor || b instanceof Tensor)
        // A number on either side is a scalar operand, as in PyTorch (2 - x is torch.sub(2, x)).
        return (
          ops as unknown as Record<string, (x: unknown, y: unknown) => Tensor>
        )[name]!(a, b);
      return numeric(n.op, Number(a), Number(b));
    }
    case "call": {
      const args = n.args.map(ev);
      const kw = Object.fromEntries(n.kwargs.map(([k, v]) => [k, ev(v)]));
      if (n.name === "where") {
        if (args.length !== 3 || !(args[0] instanceof Tensor))
          throw new ExpressionError(
            `$(): where() takes a condition tensor and two values in "${src}"`,
          );
        return where(
          args[0],
          args[1] as Tensor | number,
          args[2] as Tensor | number,
        );
      }
      if (
        !FUNCTIONS.has(n.name) ||
        typeof (Tensor.prototype as never)[n.name] !== "function"
      )
        throw new ExpressionError(
          `$(): unknown function '${n.name}' at position ${n.at} in "${src}"`,
        );
      const [first, ...rest] = args;
      if (!(first instanceof Tensor))
        throw new ExpressionError(
          `$(): ${n.name}() needs a tensor as its first argument in "${src}"`,
        );
      if (n.kwargs.length === 0) return method(first, n.name)(...rest);
      const order = POSITIONAL[n.name];
      if (order === undefined) return method(first, n.name)(...rest, kw); // an options object
      const all: unknown[] = [...rest];
      for (const [k, v] of Object.entries(kw)) {
        const p = order.indexOf(k);
        if (p < 0)
          throw new ExpressionError(
            `$(): ${n.name}() got an unexpected keyword argument '${k}'`,
          );
        all[p] = v;
      }
      return method(first, n.name)(...all);
    }
  }
}

/**
 * Evaluates a tensor expression over named tensors and numbers: `$("x @ w + b", { x, w, b })`,
 * `$("relu(x) * 2 - y.T", { x, y })`, `$("where(x > 0, x, 0.1 * x)", { x })`. The result is what
 * the same chain of ops gives (lazy, fused, differentiable); intermediates are freed. With literal
 * shapes its shape is typed, and an unknown name or a shape mismatch is a compile error.
 */
export function $<const E extends string, const V extends ExprEnv>(
  expression: E & CheckOf<ExprShape<E, V>>,
  values: V,
): Tensor<ShapeOf<ExprShape<E, V>>, ExprDType<E, V>>;
export function $(
  expression: string,
  values: Readonly<Record<string, ExprValue>>,
): Tensor {
  args("$", arguments);
  if (values === null || typeof values !== "object")
    throw new TorchError(
      "$(): argument 'values' must be an object of named tensors",
    );
  const tree = new Parser(expression, tokenize(expression)).parse();
  return scope(() => {
    const v = evaluate(expression, tree, values);
    if (!(v instanceof Tensor))
      throw new ExpressionError(
        `$(): "${expression}" has no tensor in it (it is the number ${String(v)})`,
      );
    // A bare name: a new handle, so that disposing the result leaves the input alive.
    return Object.values(values).includes(v) ? v.view(v.shape as number[]) : v;
  });
}
