// Trains an MLP (64-128-10, ReLU, Adam) on the 8×8 digits (data/digits.bin) and reports test
// accuracy. Run after `make pkg`:  node examples/mlp-digits.mjs [--epochs N] [--device cpu]
// In Node, WebGPU comes from the `webgpu` package (Dawn); without an adapter it runs on the CPU.
import * as torch from "../pkg/dist/index.js";
import { accuracy, loadDigits, progressBar, trainEpoch } from "./digits.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const EPOCHS = Number(arg("epochs", 6));
const device = arg("device");
if (device) await torch.init({ device });

const { nn, optim } = torch;
const data = await loadDigits();
console.log(
  `digits: ${data.train.n} train / ${data.test.n} test images, device ${torch.get_default_device()}`,
);

torch.manual_seed(0);
const model = new nn.Sequential(
  new nn.Linear(64, 128),
  new nn.ReLU(),
  new nn.Linear(128, 10),
);
const opt = new optim.Adam(model.parameters(), { lr: 5e-3 });
console.log(String(model));

const t0 = Date.now();
for (let epoch = 1; epoch <= EPOCHS; epoch++) {
  const bar = progressBar(`epoch ${String(epoch).padStart(2)}/${EPOCHS}`);
  const loss = await trainEpoch(torch, model, opt, data.train, epoch, {
    batchSize: 32,
    onBatch: (i, n) => bar.update(i, n),
  });
  bar.finish(`loss ${loss.toFixed(4)}`);
}
const acc = await accuracy(torch, model, data.test);
console.log(
  `test accuracy ${(acc * 100).toFixed(2)} % (${Math.round(acc * data.test.n)}/${data.test.n}) after ${EPOCHS} epochs, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);
if (acc < 0.95) {
  console.error("below 95 %");
  process.exitCode = 1;
}
