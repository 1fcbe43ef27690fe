// Train an MLP on the 8×8 digits with live loss and accuracy plots
import * as torch from "webtorch";
const { nn, optim } = torch;
const F = nn.functional;

const { train, test } = await loadDigits();
print(
  `digits: ${train.n} training / ${test.n} test images on ${torch.get_default_device()}`,
);
await plot.image(train.x.narrow(0, 0, 10).reshape(10, 8, 8), {
  title: "the first ten",
  colormap: "gray",
});

class MLP extends nn.Module {
  fc1 = new nn.Linear(64, 128);
  fc2 = new nn.Linear(128, 10);
  forward(x: torch.Tensor) {
    return this.fc2.call(this.fc1.call(x).relu());
  }
}
torch.manual_seed(0);
const model = new MLP();
const opt = new optim.Adam(model.parameters(), { lr: 5e-3 });

const accuracy = async (split: DigitsSplit) => {
  model.eval();
  const hits = torch.no_grad(() =>
    model.call(split.x).argmax(1).eq(split.y).sum(),
  );
  model.train();
  return Number(await hits.item()) / split.n;
};

const batchSize = 64;
const epochs = QUICK ? 1 : 8;
const perEpoch = QUICK ? 6 : Math.ceil(train.n / batchSize);
let step = 0;
for (let epoch = 1; epoch <= epochs; epoch++) {
  const order = torch.randperm(train.n);
  for (let i = 0; i < perEpoch; i++) {
    const idx = order.narrow(
      0,
      i * batchSize,
      Math.min(batchSize, train.n - i * batchSize),
    );
    // One scope per step: the step's temporaries are freed when it ends (memory stays flat).
    const loss = torch.scope(() => {
      opt.zero_grad();
      const l = F.cross_entropy(
        model.call(train.x.index_select(0, idx)),
        train.y.index_select(0, idx),
      );
      l.backward();
      return l.detach();
    });
    opt.step();
    step++;
    if (step % 3 === 0 || i === perEpoch - 1) {
      plot.line("training loss", { loss: Number(await loss.item()) }, step);
      progress(`epoch ${epoch}/${epochs}`, i + 1, perEpoch);
    }
    loss.dispose();
  }
  const acc = await accuracy(test);
  plot.line("test accuracy", { accuracy: acc }, epoch);
  print(`epoch ${epoch}: test accuracy ${(acc * 100).toFixed(1)} %`);
}
