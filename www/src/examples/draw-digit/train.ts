// Training the CNN in this page: Adam on cross-entropy over the 8×8 digits, with a live loss curve
// and the test accuracy after each epoch.
import * as torch from "webtorch";
import { accuracy, type DigitCNN } from "./model.ts";
const { optim } = torch;
const F = torch.nn.functional;

/**
 * Trains `model` for `epochs` passes over the training images in batches of 64 (the first `steps`
 * batches of each epoch when given: a short run). Each batch is moved by up to a pixel, so that drawings a
 * little off centre read the same. Returns the loss of every step.
 */
export async function train(
  model: DigitCNN,
  { epochs, steps }: { epochs: number; steps?: number },
): Promise<number[]> {
  const { train: data, test } = await loadDigits();
  const images = data.x.view(-1, 1, 8, 8);
  const opt = new optim.Adam(model.parameters(), { lr: 1e-2 });
  const batchSize = 64;
  const perEpoch = Math.min(steps ?? Infinity, Math.ceil(data.n / batchSize));
  const losses: number[] = [];
  model.train();
  for (let epoch = 1; epoch <= epochs; epoch++) {
    const order = torch.randperm(data.n);
    for (let i = 0; i < perEpoch; i++) {
      const idx = order.narrow(
        0,
        i * batchSize,
        Math.min(batchSize, data.n - i * batchSize),
      );
      const shift = await torch.randint(0, 3, [2]).toArray();
      const [dy, dx] = Array.from(shift, Number);
      // One scope per step: the step's temporaries are freed when it ends.
      const loss = torch.scope(() => {
        opt.zero_grad();
        const x = F.pad(images.index_select(0, idx), [1, 1, 1, 1])
          .narrow(2, dy, 8)
          .narrow(3, dx, 8);
        const l = F.cross_entropy(model.call(x), data.y.index_select(0, idx));
        l.backward();
        return l.detach();
      });
      opt.step();
      const value = Number(await loss.item());
      loss.dispose();
      losses.push(value);
      plot.line("training loss", { loss: value }, losses.length);
      progress(`epoch ${epoch}/${epochs}`, i + 1, perEpoch);
    }
    model.eval();
    const acc = await accuracy(model, test);
    model.train();
    print(`epoch ${epoch}: test accuracy ${(acc * 100).toFixed(1)} %`);
  }
  model.eval();
  return losses;
}
