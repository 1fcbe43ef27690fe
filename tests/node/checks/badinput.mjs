// The generated bad-input suite (badinput_cases.mjs): every case must throw a TorchError subclass
// carrying PyTorch's wording (badinput_torch.mjs, recorded from PyTorch), and after every case the
// engine must still compute correctly. One check per API family, so that a failure names it.
import { makeCases } from "./badinput_cases.mjs";
import { TORCH_ERRORS } from "./badinput_torch.mjs";
import { CheckFailure, show } from "./assert.mjs";

const CASES = makeCases();

/** The family of a case: the part of its id before the first "/" with a trailing "_" dropped. */
const FAMILIES = [
  ["elementwise", /^[a-z0-9_]+\/(string|undefined|array|disposed|leaf)$/],
  ["broadcasting", /\/broadcast/],
  ["reductions", /\/dim-|\/empty$|^mean\/int/],
  [
    "creation",
    /^(zeros|ones|empty|rand|randn|full|eye|arange|linspace|randint|tensor|zeros_like|ones_like|full_like)\//,
  ],
  [
    "nn, autograd and einsum",
    /^([A-Z]|load_state_dict|cross_entropy|nll_loss|mse_loss|l1_loss|binary_cross|softmax\/dim$|dropout|pad|backward|requires_grad|inplace|grad|einsum|embedding|one_hot)/,
  ],
];
const familyOf = (id) =>
  FAMILIES.find(([, re]) => re.test(id))?.[0] ??
  "views, indexing, linalg, joins, misc";

/**
 * Why the error `err` thrown by `c` is wrong, or null when it is right: a TorchError subclass
 * (IndexError where PyTorch raises one, or the case's `cls`) whose message carries PyTorch's.
 */
export function judge(torch, c, err) {
  const name = err?.name ?? typeof err;
  if (!(err instanceof torch.TorchError))
    return `threw ${name} (not a TorchError): ${err?.message ?? err}`;
  const ref = c.py ? TORCH_ERRORS[c.id] : undefined;
  if (c.py && !ref)
    return "no PyTorch fixture (regenerate: see badinput_cases.mjs)";
  const cls = c.cls ?? (ref?.type === "IndexError" ? "IndexError" : null);
  if (cls && !(err instanceof torch[cls]))
    return `threw ${name}, expected ${cls}: ${err.message}`;
  const msg = String(err.message);
  if (c.frag !== undefined) {
    if (ref && !ref.message.includes(c.frag))
      return `frag ${show(c.frag)} is not in PyTorch's message ${show(ref.message)}`;
    if (!msg.includes(c.frag))
      return `message ${show(msg)} lacks ${show(c.frag)}`;
  } else if (ref && !msg.includes(ref.message.split("\n")[0])) {
    return `message ${show(msg)} is not PyTorch's ${show(ref.message.split("\n")[0])}`;
  }
  return null;
}

/**
 * Runs one case inside a scope (its tensors are freed) on `device`; returns null when it threw
 * the right error, "gap" when it returned on a device its known gap names, else what went wrong.
 */
export async function runCase(torch, c, device) {
  let err;
  try {
    await torch.scope(() => c.run(torch));
    // Index and value checks on WebGPU raise at the next sync (a device-side assert).
    if (device === "webgpu") await torch.webgpu.sync_device();
  } catch (e) {
    err = e;
  }
  if (err === undefined)
    return c.gap?.on.includes(device) ? "gap" : "returned instead of throwing";
  return judge(torch, c, err);
}

/** A small computation with a known answer: the engine still works. */
export async function engineWorks(torch) {
  const a = torch.tensor([
    [1, 2],
    [3, 4],
  ]);
  const b = torch.tensor([[1], [-1]]);
  const v = await a.matmul(b).exp().sum().item();
  a.dispose();
  b.dispose();
  const want = 2 * Math.exp(-1);
  if (Math.abs(v - want) > 1e-5)
    throw new CheckFailure(`engine broken after a case: ${v} != ${want}`);
}

const byFamily = new Map();
for (const c of CASES) {
  const f = familyOf(c.id);
  if (!byFamily.has(f)) byFamily.set(f, []);
  byFamily.get(f).push(c);
}

/** @type {import("./index.mjs").Check[]} */
export const checks = [...byFamily].map(([family, cases]) => ({
  name: `bad input: ${family} (${cases.length} cases), typed errors with PyTorch's wording, engine intact`,
  async run(torch, { device }) {
    const failures = [];
    for (const c of cases) {
      const why = await runCase(torch, c, device);
      if (why && why !== "gap") failures.push(`${c.id}: ${why}`);
      await engineWorks(torch);
    }
    if (failures.length)
      throw new CheckFailure(
        `${failures.length}/${cases.length} cases wrong:\n${failures.join("\n")}`,
      );
  },
}));

/** Every case (for the count in docs/RELIABILITY.md and the load test). */
export { CASES };
