// Draw a digit: a small CNN reads your drawing live, with its probabilities
import * as torch from "webtorch";
import { DigitCNN, accuracy, fromDrawing } from "./model.ts";
import { train } from "./train.ts";

// By default the CNN loads the weights PyTorch trained for this architecture
// (scripts/make_playground_cnn.py). Set TRAIN_IN_PAGE to true to train it here instead
// (train.ts: 8 epochs, with a live loss curve and the test accuracy after each).
const TRAIN_IN_PAGE = false;

torch.manual_seed(0);
const model = new DigitCNN();
if (TRAIN_IN_PAGE) {
  await train(model, QUICK ? { epochs: 1, steps: 8 } : { epochs: 8 });
} else {
  model.load_state_dict(await torch.load("/assets/digits-cnn.safetensors"));
  model.eval();
  // PyTorch's accuracy with the same weights on the same test images.
  const ref = await (await fetch("/assets/digits-cnn.json")).json();
  const { test } = await loadDigits();
  const acc = await accuracy(model, test);
  print(
    `test accuracy in webtorch: ${(acc * 100).toFixed(2)} %, in PyTorch: ${ref.test_accuracy_percent.toFixed(2)} %`,
  );
}

const pad = drawPad({ title: "draw a digit (0–9), large", size: 32 });
print(
  "Draw a digit in the pad: each stroke is classified as you lift the pen.",
);
for await (const pixels of pad) {
  const probs = torch.no_grad(() =>
    model.call(fromDrawing(pixels)).softmax(-1).squeeze(0),
  );
  await plot.bars("probabilities", probs);
  const top = Number(await probs.argmax().item());
  const p = Number(await probs.select(0, top).item());
  print(`it looks like a ${top} (${(100 * p).toFixed(0)} %)`);
}
