// Training in the page: the fixed-seed 8-16-4 MLP of tests/parity/train_gen.py, loaded from
// PyTorch's initial weights (torch.load of a safetensors URL, fetched), trained 20 steps with
// SGD-momentum and with AdamW inside torch.scope; per-step losses and final weights must match
// PyTorch's (|a - e| <= 1e-4 · max(1, |e|)). Returns a description of the first mismatch, or null.
const FIXTURES = "/tests/parity/fixtures/train/";

function mismatch(got, want, what) {
  const a = Array.from(got);
  if (a.length !== want.length)
    return `${what}: ${a.length} values, expected ${want.length}`;
  for (let i = 0; i < a.length; i++)
    if (!(Math.abs(a[i] - want[i]) <= 1e-4 * Math.max(1, Math.abs(want[i]))))
      return `${what}[${i}]: got ${a[i]}, expected ${want[i]}`;
  return null;
}

/** Trains each run of mlp_train.json on `device`; `{ losses, error }` per run. */
export async function trainParity(
  torch,
  device,
  runs = ["sgd_momentum", "adamw"],
) {
  await torch.init({ device });
  const { nn, optim } = torch;
  const base = new URL(FIXTURES, location.href);
  const spec = await (await fetch(new URL("mlp_train.json", base))).json();
  const init = await torch.load(new URL("mlp_init.safetensors", base));
  const x = torch.tensor(Float32Array.from(spec.x.data)).reshape(spec.x.shape);
  const y = torch.tensor(spec.y);
  const out = {};
  for (const name of runs) {
    const run = spec.runs[name];
    const model = new nn.Sequential(
      new nn.Linear(8, 16),
      new nn.ReLU(),
      new nn.Linear(16, 4),
    );
    model.load_state_dict(init);
    const opt = new optim[run.optimizer](model.parameters(), run.options);
    const losses = [];
    for (let i = 0; i < spec.steps; i++) {
      const loss = torch.scope(() => {
        opt.zero_grad();
        const l = nn.functional.cross_entropy(model.call(x), y);
        l.backward();
        return l;
      });
      opt.step();
      losses.push(await loss.item());
      loss.dispose();
    }
    let error = mismatch(losses, run.losses, `${name} losses`);
    const sd = model.state_dict();
    for (const [k, v] of Object.entries(run.final))
      error ??= mismatch(await sd[k].toArray(), v, `${name} ${k}`);
    out[name] = { losses, error };
  }
  return out;
}
