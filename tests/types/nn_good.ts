// nn, optim and autograd.Function code that must type-check against the published declarations.
import * as torch from "webtorch";
import { nn, optim, autograd, type Tensor } from "webtorch";

export class Square extends autograd.Function {
  static override forward(ctx: autograd.FunctionCtx, x: Tensor): Tensor {
    ctx.save_for_backward(x);
    return x.mul(x);
  }
  static override backward(ctx: autograd.FunctionCtx, g: Tensor): Tensor {
    const [x] = ctx.saved_tensors;
    return g.mul(x!).mul(2);
  }
}

const x = torch.ones(3).requires_grad_();
const y: Tensor = Square.apply(x);

const lstm = new nn.LSTM(3, 4, { num_layers: 2, bidirectional: true });
const [out, [h, c]] = lstm.call(torch.zeros(5, 2, 3));
const gru = new nn.GRU(3, 4, { batch_first: true });
const [gOut, gH]: [Tensor, Tensor] = gru.call(torch.zeros(2, 5, 3), null);
const packed = nn.utils.rnn.pack_sequence([
  torch.zeros(3, 3),
  torch.zeros(2, 3),
]);
const [pOut, [pH, pC]] = lstm.forward(packed);
const [cOut, [cH]]: [nn.utils.rnn.PackedSequence, [Tensor, Tensor]] =
  lstm.call(packed);
const [gpOut]: [nn.utils.rnn.PackedSequence, Tensor] = gru.call(packed);
const [rOut]: [Tensor, Tensor] = new nn.RNN(3, 4).call(torch.zeros(5, 2, 3));
const pData: Tensor = pOut.data;
const [padded, lengths]: [Tensor, Tensor] =
  nn.utils.rnn.pad_packed_sequence(pOut);

const q = torch.zeros(4, 2, 8);
const mha = new nn.MultiheadAttention(8, 2, { batch_first: false });
const [attn, weights] = mha.call(q, q, q, { need_weights: true });
const enc = new nn.TransformerEncoder(
  new nn.TransformerEncoderLayer(8, 2, { dim_feedforward: 16, dropout: 0 }),
  2,
);
const z: Tensor = enc.call(q, {
  mask: nn.Transformer.generate_square_subsequent_mask(4),
});

const ctc: Tensor = new nn.CTCLoss({ blank: 0 }).call(
  torch.zeros(6, 2, 4),
  torch.ones(2, 3, { dtype: "int64" }),
  [6, 6],
  [3, 2],
);

const opt = new optim.NAdam(lstm.parameters(), { lr: 1e-3 });
const sched = new optim.lr_scheduler.OneCycleLR(opt, {
  max_lr: 0.1,
  total_steps: 10,
});
sched.step();
const plateau = new optim.lr_scheduler.ReduceLROnPlateau(opt, { patience: 2 });
plateau.step(0.5);
const lrs: number[] = plateau.get_last_lr();

void [
  y,
  out,
  h,
  c,
  gOut,
  gH,
  cOut,
  cH,
  gpOut,
  rOut,
  attn,
  weights,
  z,
  ctc,
  lrs,
];
