// nn, optim and autograd.Function misuse that must NOT type-check.
import * as torch from "webtorch";
import { nn, optim, type Tensor } from "webtorch";
import { Square } from "./nn_good.js";

const x = torch.ones(3);
const lstm = new nn.LSTM(3, 4);
const opt = new optim.Adam(lstm.parameters());
const plateau = new optim.lr_scheduler.ReduceLROnPlateau(opt);

// @ts-expect-error — apply takes forward's arguments
Square.apply(x, 2);
// @ts-expect-error — LSTM's hx is the pair [h_0, c_0]
lstm.call(x, x);
// @ts-expect-error — ReduceLROnPlateau.step takes a number (read the metric first)
plateau.step(torch.ones(1));
// @ts-expect-error — OneCycleLR needs max_lr
new optim.lr_scheduler.OneCycleLR(opt, { total_steps: 10 });
// @ts-expect-error — RNN options are named
new nn.RNN(3, 4, 2);
const packed = nn.utils.rnn.pack_sequence([torch.ones(2, 3), torch.ones(1, 3)]);
// @ts-expect-error — a packed input gives a packed output, not a padded tensor
const notPadded: [Tensor, [Tensor, Tensor]] = lstm.call(packed);
// @ts-expect-error — a packed sequence is not a tensor argument of a cell
new nn.LSTMCell(3, 4).call(packed);
void notPadded;
