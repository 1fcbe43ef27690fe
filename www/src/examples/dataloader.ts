// A training loop over torch.utils.data: TensorDataset, DataLoader (shuffled batches), an MLP
import * as torch from "webtorch";
const { nn, optim } = torch;
const { DataLoader, TensorDataset } = torch.utils.data;
const F = nn.functional;

const { train, test } = await loadDigits();
// As in PyTorch: a dataset of (image, label) pairs, batched and reshuffled every epoch.
const dataset = new TensorDataset(train.x, train.y);
const generator = new torch.Generator().manual_seed(0);
const loader = new DataLoader(dataset, {
  batch_size: 64,
  shuffle: true,
  generator,
});
print(`${dataset.len()} samples → ${loader.len()} batches of 64 per epoch`);

torch.manual_seed(0);
const model = new nn.Sequential(
  new nn.Linear(64, 64),
  new nn.ReLU(),
  new nn.Linear(64, 10),
);
const opt = new optim.Adam(model.parameters(), { lr: 5e-3 });

const epochs = QUICK ? 1 : 5;
for (let epoch = 1; epoch <= epochs; epoch++) {
  let step = 0;
  for (const batch of loader) {
    // default_collate stacks each field: [images [64, 64], labels [64]]
    const [x, y] = batch as torch.Tensor[];
    const loss = torch.scope(() => {
      opt.zero_grad();
      const l = F.cross_entropy(model.call(x) as torch.Tensor, y);
      l.backward();
      return l.detach();
    });
    opt.step();
    step++;
    if (step % 4 === 0) {
      plot.line("training loss", { loss: Number(await loss.item()) });
      progress(`epoch ${epoch}/${epochs}`, step, loader.len());
    }
    loss.dispose();
  }
  const hits = torch.no_grad(() =>
    (model.call(test.x) as torch.Tensor).argmax(1).eq(test.y).sum(),
  );
  print(
    `epoch ${epoch}: test accuracy ${((100 * Number(await hits.item())) / test.n).toFixed(1)} %`,
  );
}
