// Load a model trained in PyTorch from safetensors and evaluate it
import * as torch from "webtorch";
const { nn } = torch;

// www/assets/digits-mlp.safetensors: a 64-32-10 MLP trained by PyTorch
// (scripts/make_playground_model.py) and saved with safetensors.torch.save_file.
const state = await torch.load("/assets/digits-mlp.safetensors");
for (const [name, t] of Object.entries(state))
  print(name.padEnd(9), t.shape, t.dtype);

const model = new nn.Sequential(
  new nn.Linear(64, 32),
  new nn.ReLU(),
  new nn.Linear(32, 10),
);
print(model.load_state_dict(state));
model.eval();

const { test } = await loadDigits();
// Sequential's call returns `unknown` (its layers could return anything): say what it is.
const logits = torch.no_grad(() => model.call(test.x) as torch.Tensor);
const correct = Number(await logits.argmax(1).eq(test.y).sum().item());
print(
  `test accuracy in webtorch: ${((100 * correct) / test.n).toFixed(2)} % (${correct}/${test.n})`,
);
const pytorch = await (await fetch("/assets/digits-mlp.json")).json();
print(
  `test accuracy in PyTorch:  ${pytorch.test_accuracy_percent.toFixed(2)} % (${pytorch.correct}/${test.n})`,
);
await plot.image(state["0.weight"], { title: "first layer weights [32, 64]" });
await plot.hist(state["0.weight"], { title: "first layer weights" });
print("first test image's logits, webtorch:", logits.select(0, 0));
print(
  "first test image's logits, PyTorch: ",
  pytorch.first_logits.map((v: number) => v.toFixed(4)).join(", "),
);
