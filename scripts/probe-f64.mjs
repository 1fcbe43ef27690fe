// Lists the public functions, Tensor methods and optimizers that raise PyTorch's
// `"<kernel>" not implemented for 'Double'` on float64 inputs on the CPU backend: each is called
// with a few argument patterns of float64 tensors (and int64 targets/indices where an op takes
// them); any other error is ignored (a wrong pattern), so the list is the ops that reach a
// missing float64 kernel. Usage: node scripts/probe-f64.mjs (after `make pkg`).
const torch = await import(
  new URL("../pkg/dist/index.js", import.meta.url).href
);
await torch.init({ device: "cpu" });
const D = { dtype: "float64" };
const x1 = () => torch.tensor([0.3, 0.7, 0.2, 0.9], D);
const x2 = () =>
  torch.tensor(
    [
      [0.3, 0.7, 0.2],
      [0.9, 0.1, 0.5],
    ],
    D,
  );
const sq = () =>
  torch.tensor(
    [
      [2, 0.5],
      [0.5, 3],
    ],
    D,
  );
const x4 = () => torch.rand([1, 2, 4, 4], D);
const tgt = () => torch.tensor([1, 0]);
const PATTERNS = [
  () => [x1()],
  () => [x2()],
  () => [x2(), 1],
  () => [x2(), 0],
  () => [x1(), x1()],
  () => [x2(), x2()],
  () => [x2(), tgt()],
  () => [x2(), x2(), x2()],
  () => [1, x1()],
  () => [2, x1()],
  () => [sq()],
  () => [x4(), 2],
  () => [x4()],
  () => [x2(), 2],
  () => [x2(), [0, 1]],
  () => [x1(), 0.5],
  () => [x1(), torch.tensor([0.5, 0.8], D)],
];
const MISSING = /not implemented for 'Double'/;
async function settle(v) {
  if (v && typeof v.toArray === "function") await v.toArray();
  else if (Array.isArray(v)) for (const e of v) await settle(e);
  else if (v && typeof v === "object" && !(v instanceof Promise))
    for (const e of Object.values(v))
      if (e && typeof e.toArray === "function") await e.toArray();
}
async function raises(f) {
  try {
    await settle(await f());
  } catch (e) {
    return MISSING.test(String(e?.message)) ? String(e.message) : null;
  }
  return null;
}
const found = new Map();
const SKIP = new Set([
  "init",
  "manual_seed",
  "set_default_dtype",
  "set_default_device",
  "compile",
  "load",
  "save",
]);
const spaces = [
  ["torch", torch],
  ["torch.special", torch.special],
  ["torch.linalg", torch.linalg ?? {}],
  ["torch.fft", torch.fft ?? {}],
  ["F", torch.nn.functional],
];
for (const [ns, mod] of spaces)
  for (const [name, f] of Object.entries(mod)) {
    if (typeof f !== "function" || SKIP.has(name) || /^[A-Z]/.test(name))
      continue;
    for (const p of PATTERNS) {
      const m = await raises(() => f(...p()));
      if (m) {
        found.set(`${ns}.${name}`, m);
        break;
      }
    }
  }
const proto = Object.getPrototypeOf(x1());
for (const name of Object.getOwnPropertyNames(proto)) {
  if (name === "constructor" || name.startsWith("_")) continue;
  const desc = Object.getOwnPropertyDescriptor(proto, name);
  if (typeof desc?.value !== "function") continue;
  for (const p of PATTERNS) {
    const m = await raises(() => {
      const [self, ...rest] = p();
      if (!(self && typeof self.toArray === "function")) return null;
      return self[name](...rest);
    });
    if (m) {
      found.set(`Tensor.${name}`, m);
      break;
    }
  }
}
for (const [name, Opt] of Object.entries(torch.optim)) {
  if (
    typeof Opt !== "function" ||
    name === "Optimizer" ||
    name === "lr_scheduler"
  )
    continue;
  const m = await raises(async () => {
    const w = torch.tensor([1.5, -2], D).requires_grad_();
    const opt = new Opt([w], name === "LBFGS" ? { lr: 1 } : {});
    const closure = () => {
      opt.zero_grad();
      const l = w.mul(w).sum();
      l.backward();
      return l;
    };
    for (let i = 0; i < 2; i++) await opt.step(closure);
    return w;
  });
  if (m) found.set(`optim.${name}`, m);
}
for (const [k, v] of [...found].sort()) console.log(`${k}\t${v}`);
console.log(`${found.size} raise "not implemented for 'Double'"`);
