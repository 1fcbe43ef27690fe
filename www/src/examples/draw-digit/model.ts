// The classifier: a small CNN over the 8×8 digits, module for module as
// scripts/make_playground_cnn.py writes it in PyTorch, so its weights load by PyTorch's names
// ("conv1.weight", …).
import * as torch from "webtorch";
const { nn } = torch;
const F = nn.functional;

/** conv 3×3 → ReLU → 2×2 max pool, twice (8×8 → 4×4 → 2×2), then a linear layer. */
export class DigitCNN extends nn.Module {
  conv1 = new nn.Conv2d(1, 16, 3, { padding: 1 });
  conv2 = new nn.Conv2d(16, 32, 3, { padding: 1 });
  fc = new nn.Linear(32 * 2 * 2, 10);
  /** float32 `[b, 1, 8, 8]` images (ink in 0..1) → `[b, 10]` logits. */
  forward(x: torch.Tensor): torch.Tensor {
    const h1 = F.max_pool2d(F.relu(this.conv1.call(x)), 2);
    const h2 = F.max_pool2d(F.relu(this.conv2.call(h1)), 2);
    return this.fc.call(h2.flatten(1));
  }
}

/**
 * A drawing (`size × size` ink from drawPad, size 32) as the model's input `[1, 1, 8, 8]`: the UCI
 * digits are 32×32 bitmaps summed over 4×4 blocks, and avg_pool2d gives those sums / 16.
 */
export function fromDrawing(pixels: Float32Array): torch.Tensor {
  return F.avg_pool2d(torch.tensor(pixels).view(1, 1, 32, 32), 4);
}

/** The share of `split`'s images the model classifies right (in eval mode). */
export async function accuracy(
  model: DigitCNN,
  split: DigitsSplit,
): Promise<number> {
  const hits = torch.no_grad(() =>
    model
      .call(split.x.view(-1, 1, 8, 8))
      .argmax(1)
      .eq(split.y)
      .sum(),
  );
  return Number(await hits.item()) / split.n;
}
