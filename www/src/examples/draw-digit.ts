// Draw a digit: a PyTorch-trained classifier reads your drawing live, with its probabilities
import * as torch from "webtorch";
const { nn } = torch;
const F = nn.functional;

// The 64-32-10 MLP of the safetensors example (scripts/make_playground_model.py, 97 % on the
// 8×8 digits' test set).
const model = new nn.Sequential(
  new nn.Linear(64, 32),
  new nn.ReLU(),
  new nn.Linear(32, 10),
);
model.load_state_dict(await torch.load("/assets/digits-mlp.safetensors"));
model.eval();

const pad = drawPad({ title: "draw a digit (0–9), large", size: 32 });
print(
  "Draw a digit in the pad: each stroke is classified as you lift the pen.",
);
for await (const pixels of pad) {
  // The UCI digits are 32×32 bitmaps summed over 4×4 blocks: avg_pool2d gives those sums / 16.
  const x = F.avg_pool2d(torch.tensor(pixels).view(1, 1, 32, 32), 4);
  const probs = torch.no_grad(() =>
    (model.call(x.view(1, 64)) as torch.Tensor).softmax(-1).squeeze(0),
  );
  await plot.bars("probabilities", probs);
  const top = Number(await probs.argmax().item());
  const p = Number(await probs.select(0, top).item());
  print(`it looks like a ${top} (${(100 * p).toFixed(0)} %)`);
}
