// GroupNorm, InstanceNorm, Bilinear, EmbeddingBag, RNN/LSTM/GRU (+ cells), MultiheadAttention and
// the transformer layers against PyTorch (tests/parity/fixtures/train/nn_modules.json, written by
// tests/parity/nn_gen.py): each module loads PyTorch's state dict strictly (same key names, in
// PyTorch's order), then outputs, parameter gradients, input gradients and updated running
// statistics must match — on WebGPU and on the CPU backend; and an LSTM classifier trained 6
// AdamW steps gives PyTorch's losses and weights (lstm_train.json).
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { PKG_ENTRY } from "./harness.mjs";
import { assertClose } from "./close.mjs";

const torch = await import(PKG_ENTRY.href);
const { nn } = torch;
const FIX = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/train/nn_modules.json", import.meta.url),
  ),
);

const LSTM_TRAIN = JSON.parse(
  readFileSync(
    new URL("../parity/fixtures/train/lstm_train.json", import.meta.url),
  ),
);

const call = (m, ins) => m.call(...ins);
// CTC on logits: PyTorch's CTC gradient is the one through a log_softmax (see nn_gen.py).
const ctc = (m, [x, ...rest]) =>
  m.call(nn.functional.log_softmax(x, -1), ...rest);
const mha = (m, [q, k, v], kw) => m.call(q, k, v, kw);
const enc = (o) => ({ dim_feedforward: 16, dropout: 0, ...o });

/** Case name → [make the module, run it on (module, inputs, kwargs)]. */
const CASES = {
  GroupNorm: [() => new nn.GroupNorm(2, 4), call],
  GroupNorm_noaffine_4d: [
    () => new nn.GroupNorm(3, 6, { affine: false, eps: 1e-3 }),
    call,
  ],
  InstanceNorm1d: [() => new nn.InstanceNorm1d(3), call],
  InstanceNorm1d_unbatched_affine: [
    () => new nn.InstanceNorm1d(3, { affine: true }),
    call,
  ],
  InstanceNorm2d_running: [
    () =>
      new nn.InstanceNorm2d(2, {
        affine: true,
        track_running_stats: true,
        momentum: 0.2,
      }),
    call,
  ],
  InstanceNorm2d_running_eval: [
    () => new nn.InstanceNorm2d(2, { track_running_stats: true }),
    call,
  ],
  Bilinear: [() => new nn.Bilinear(3, 4, 2), call],
  Bilinear_nobias_3d: [() => new nn.Bilinear(2, 3, 2, false), call],
  EmbeddingBag_mean_offsets: [() => new nn.EmbeddingBag(10, 3), call],
  EmbeddingBag_sum_weights: [
    () => new nn.EmbeddingBag(10, 3, { mode: "sum" }),
    (m, [x, off], kw) => m.call(x, off, kw.per_sample_weights),
  ],
  EmbeddingBag_max_2d: [
    () => new nn.EmbeddingBag(10, 3, { mode: "max" }),
    call,
  ],
  EmbeddingBag_padding_last_offset: [
    () =>
      new nn.EmbeddingBag(10, 3, {
        padding_idx: 4,
        include_last_offset: true,
      }),
    call,
  ],
  RNN_tanh_2layer_h0: [() => new nn.RNN(3, 4, { num_layers: 2 }), call],
  RNN_relu_bidir_batch_first: [
    () =>
      new nn.RNN(3, 4, {
        nonlinearity: "relu",
        bidirectional: true,
        batch_first: true,
      }),
    call,
  ],
  LSTM_2layer_bidir: [
    () => new nn.LSTM(3, 4, { num_layers: 2, bidirectional: true }),
    call,
  ],
  LSTM_batch_first_state: [
    () => new nn.LSTM(3, 4, { batch_first: true }),
    call,
  ],
  LSTM_proj_unbatched: [
    () => new nn.LSTM(3, 4, { proj_size: 2, bias: false }),
    call,
  ],
  GRU_2layer: [() => new nn.GRU(3, 4, { num_layers: 2 }), call],
  GRU_bidir_batch_first: [
    () => new nn.GRU(2, 3, { bidirectional: true, batch_first: true }),
    call,
  ],
  RNNCell: [() => new nn.RNNCell(3, 4), call],
  LSTMCell: [() => new nn.LSTMCell(3, 4), call],
  GRUCell_no_hidden: [() => new nn.GRUCell(3, 4), call],
  MultiheadAttention_self_padding: [() => new nn.MultiheadAttention(8, 2), mha],
  MultiheadAttention_batch_first_causal_heads: [
    () => new nn.MultiheadAttention(8, 2, { batch_first: true }),
    mha,
  ],
  MultiheadAttention_kdim_vdim_float_mask: [
    () => new nn.MultiheadAttention(4, 1, { kdim: 3, vdim: 5, bias: false }),
    mha,
  ],
  MultiheadAttention_bias_kv_zero_attn: [
    () =>
      new nn.MultiheadAttention(4, 2, {
        add_bias_kv: true,
        add_zero_attn: true,
      }),
    mha,
  ],
  TransformerEncoderLayer: [
    () => new nn.TransformerEncoderLayer(8, 2, enc()),
    call,
  ],
  TransformerEncoderLayer_norm_first_gelu_batch_first: [
    () =>
      new nn.TransformerEncoderLayer(
        8,
        2,
        enc({
          dim_feedforward: 12,
          activation: "gelu",
          batch_first: true,
          norm_first: true,
        }),
      ),
    (m, [x], kw) => m.call(x, kw),
  ],
  MultiheadAttention_is_causal_no_weights: [
    () => new nn.MultiheadAttention(8, 2, { batch_first: true }),
    mha,
  ],
  TransformerEncoderLayer_is_causal: [
    () =>
      new nn.TransformerEncoderLayer(
        8,
        2,
        enc({
          dim_feedforward: 12,
          activation: "gelu",
          batch_first: true,
          norm_first: true,
        }),
      ),
    (m, [x], kw) => m.call(x, kw),
  ],
  TransformerDecoderLayer: [
    () => new nn.TransformerDecoderLayer(8, 2, enc()),
    (m, [x, mem], kw) => m.call(x, mem, kw),
  ],
  TransformerEncoder_norm: [
    () =>
      new nn.TransformerEncoder(
        new nn.TransformerEncoderLayer(8, 2, enc()),
        2,
        new nn.LayerNorm(8),
      ),
    (m, [x], kw) => m.call(x, kw),
  ],
  TransformerDecoder: [
    () =>
      new nn.TransformerDecoder(
        new nn.TransformerDecoderLayer(8, 2, enc({ norm_first: true })),
        2,
      ),
    (m, [x, mem], kw) => m.call(x, mem, kw),
  ],
  HuberLoss_delta: [() => new nn.HuberLoss({ delta: 0.5 }), call],
  KLDivLoss_batchmean: [
    () => new nn.KLDivLoss({ reduction: "batchmean" }),
    call,
  ],
  KLDivLoss_log_target_sum: [
    () => new nn.KLDivLoss({ reduction: "sum", log_target: true }),
    call,
  ],
  PoissonNLLLoss: [() => new nn.PoissonNLLLoss(), call],
  PoissonNLLLoss_full_rate: [
    () => new nn.PoissonNLLLoss({ log_input: false, full: true }),
    call,
  ],
  GaussianNLLLoss: [() => new nn.GaussianNLLLoss(), call],
  GaussianNLLLoss_full_clamped_sum: [
    () => new nn.GaussianNLLLoss({ full: true, eps: 0.05, reduction: "sum" }),
    call,
  ],
  MarginRankingLoss: [() => new nn.MarginRankingLoss({ margin: 0.2 }), call],
  HingeEmbeddingLoss: [() => new nn.HingeEmbeddingLoss({ margin: 0.7 }), call],
  SoftMarginLoss: [() => new nn.SoftMarginLoss(), call],
  MultiLabelSoftMarginLoss_weight: [
    () =>
      new nn.MultiLabelSoftMarginLoss({
        weight: torch.tensor([0.5, 1, 2, 0.25], { dtype: "float32" }),
      }),
    call,
  ],
  MultiLabelMarginLoss: [() => new nn.MultiLabelMarginLoss(), call],
  MultiMarginLoss: [() => new nn.MultiMarginLoss(), call],
  MultiMarginLoss_p2_weight_sum: [
    () =>
      new nn.MultiMarginLoss({
        p: 2,
        margin: 0.5,
        weight: torch.tensor([0.5, 1, 2, 0.25], { dtype: "float32" }),
        reduction: "sum",
      }),
    call,
  ],
  CosineEmbeddingLoss: [
    () => new nn.CosineEmbeddingLoss({ margin: 0.1 }),
    call,
  ],
  TripletMarginLoss: [() => new nn.TripletMarginLoss({ margin: 0.5 }), call],
  TripletMarginLoss_p1_swap: [
    () => new nn.TripletMarginLoss({ p: 1, swap: true }),
    call,
  ],
  TripletMarginWithDistanceLoss_cosine: [
    () =>
      new nn.TripletMarginWithDistanceLoss({
        distance_function: (a, b) =>
          nn.functional.cosine_similarity(a, b).neg().add(1),
      }),
    call,
  ],
  PairwiseDistance_p3_keepdim: [
    () => new nn.PairwiseDistance(3, 1e-6, true),
    call,
  ],
  CosineSimilarity: [() => new nn.CosineSimilarity(1), call],
  PReLU_channels: [() => new nn.PReLU(3), call],
  GLU: [() => new nn.GLU(1), call],
  Hardshrink: [() => new nn.Hardshrink(0.3), call],
  Softshrink: [() => new nn.Softshrink(0.3), call],
  Threshold: [() => new nn.Threshold(0.1, -2), call],
  Softmax2d: [() => new nn.Softmax2d(), call],
  RReLU_eval: [() => new nn.RReLU(), call],
  CTCLoss_padded: [() => new nn.CTCLoss(), ctc],
  CTCLoss_concat_blank_sum: [
    () => new nn.CTCLoss({ blank: 3, reduction: "sum" }),
    ctc,
  ],
  CTCLoss_unbatched_none: [() => new nn.CTCLoss({ reduction: "none" }), ctc],
  CTCLoss_zero_infinity: [
    () => new nn.CTCLoss({ zero_infinity: true, reduction: "none" }),
    ctc,
  ],
  AdaptiveMaxPool1d: [() => new nn.AdaptiveMaxPool1d(3), call],
  AdaptiveMaxPool2d_none: [() => new nn.AdaptiveMaxPool2d([2, null]), call],
  AdaptiveMaxPool2d_unbatched: [() => new nn.AdaptiveMaxPool2d(3), call],
  MaxPool2d_indices: [
    () => new nn.MaxPool2d(2, { return_indices: true }),
    call,
  ],
  MaxPool1d_indices_padded: [
    () => new nn.MaxPool1d(3, { stride: 2, padding: 1, return_indices: true }),
    call,
  ],
  AdaptiveMaxPool2d_indices: [() => new nn.AdaptiveMaxPool2d(3, true), call],
  MaxUnpool2d: [() => new nn.MaxUnpool2d(2), call],
  MaxUnpool1d_stride_padding: [() => new nn.MaxUnpool1d(3, 2, 1), call],
  Embedding_padding_idx: [() => new nn.Embedding(6, 3, 2), call],
  Transformer: [
    () =>
      new nn.Transformer({
        d_model: 8,
        nhead: 2,
        num_encoder_layers: 1,
        num_decoder_layers: 1,
        dim_feedforward: 16,
        dropout: 0,
        batch_first: true,
      }),
    (m, [src, tgt], kw) => m.call(src, tgt, kw),
  ],
};

function fromSpec(s) {
  const data =
    s.dtype === "float32" ? Float32Array.from(s.data) : Int32Array.from(s.data);
  return torch.tensor(data, { dtype: s.dtype }).reshape(s.shape);
}

/** The tensors of a (possibly nested) output, in order. */
const tensorsOf = (v) =>
  v instanceof torch.Tensor
    ? [v]
    : Array.isArray(v)
      ? v.flatMap(tensorsOf)
      : [];

const devices = torch.webgpu.is_available() ? ["webgpu", "cpu"] : ["cpu"];

for (const device of devices) {
  describe(`[${device}] nn modules against PyTorch`, () => {
    before(async () => {
      await torch.init({ device });
    });

    test("every fixture case has a module here, and every module a case", () => {
      assert.deepEqual(Object.keys(CASES).sort(), Object.keys(FIX).sort());
    });

    for (const [name, c] of Object.entries(FIX)) {
      test(name, async () => {
        const [make, run] = CASES[name];
        const m = make();
        assert.deepEqual(
          Object.keys(m.state_dict()),
          Object.keys(c.state),
          "state_dict keys and order",
        );
        const state = Object.fromEntries(
          Object.entries(c.state).map(([k, v]) => [k, fromSpec(v)]),
        );
        m.load_state_dict(state);
        m.train(c.train);
        const leaves = [];
        const input = (s) => {
          if (s === null) return null;
          if (Array.isArray(s)) return s.map(input);
          const t = fromSpec(s);
          if (s.dtype === "float32" && !s.const)
            leaves.push(t.requires_grad_());
          return t;
        };
        const ins = c.inputs.map(input);
        const kw = {};
        for (const [k, v] of Object.entries(c.kwargs)) {
          if (v && typeof v === "object" && "shape" in v) {
            kw[k] = fromSpec(v);
            if (k === "per_sample_weights") leaves.push(kw[k].requires_grad_());
          } else kw[k] = v;
        }
        const outs = tensorsOf(run(m, ins, kw));
        assert.equal(outs.length, c.outputs.length, "number of outputs");
        let loss = null;
        for (const [i, o] of outs.entries()) {
          const want = c.outputs[i];
          assert.deepEqual([...o.shape], want.shape, `output ${i} shape`);
          assertClose(await o.toArray(), want.data, 1e-4, `${name} out ${i}`);
          const n = o.numel();
          const w = Array.from({ length: n }, (_, j) =>
            n === 1 ? -1 : -1 + (2 * j) / (n - 1),
          );
          const term = o
            .mul(torch.tensor(Float32Array.from(w)).reshape(want.shape))
            .sum();
          loss = loss === null ? term : loss.add(term);
        }
        loss.backward();
        const params = Object.fromEntries(m.named_parameters());
        for (const [k, g] of Object.entries(c.param_grads)) {
          assert.ok(params[k].grad, `${k} has a gradient`);
          assertClose(
            await params[k].grad.toArray(),
            g,
            1e-4,
            `${name} ${k}.grad`,
          );
        }
        assert.equal(leaves.length, c.input_grads.length, "input leaves");
        for (const [i, t] of leaves.entries()) {
          if (c.input_grads[i] === null) {
            assert.equal(t.grad, null, `${name} input ${i} has no gradient`);
            continue;
          }
          assertClose(
            await t.grad.toArray(),
            c.input_grads[i],
            1e-4,
            `${name} input ${i} grad`,
          );
        }
        const sd = m.state_dict();
        for (const [k, v] of Object.entries(c.state_after ?? {}))
          assertClose(await sd[k].toArray(), v, 1e-4, `${name} ${k}`);
      });
    }

    test("initialisation follows PyTorch's bounds", async () => {
      const bound = async (t) =>
        Math.max(...Array.from(await t.toArray(), Math.abs));
      const lstm = new nn.LSTM(3, 16, { num_layers: 2 });
      for (const [, p] of lstm.named_parameters())
        assert.ok((await bound(p)) <= 0.25 + 1e-6);
      const bl = new nn.Bilinear(4, 2, 3);
      assert.ok((await bound(bl.weight)) <= 0.5 + 1e-6);
      const mh = new nn.MultiheadAttention(8, 2);
      assert.equal(await bound(mh.in_proj_bias), 0);
      assert.equal(await bound(mh.out_proj.bias), 0);
      // xavier_uniform_ on (24, 8): bound √(6 / 32)
      assert.ok((await bound(mh.in_proj_weight)) <= Math.sqrt(6 / 32) + 1e-6);
      const eb = new nn.EmbeddingBag(5, 3, { padding_idx: 1 });
      assert.deepEqual(await eb.weight.narrow(0, 1, 1).tolist(), [[0, 0, 0]]);
      const gn = new nn.GroupNorm(2, 4);
      assert.deepEqual(await gn.weight.tolist(), [1, 1, 1, 1]);
    });

    test("errors with PyTorch's wording", () => {
      assert.throws(
        () => new nn.GroupNorm(3, 4),
        /num_channels must be divisible by num_groups/,
      );
      assert.throws(
        () => new nn.LSTM(3, 4).call(torch.zeros(2, 2, 5)),
        /input.size\(-1\) must be equal to input_size. Expected 3, got 5/,
      );
      assert.throws(
        () => new nn.GRU(3, 4).call(torch.zeros(2, 2, 3), torch.zeros(2, 2, 4)),
        /Expected hidden size \(1, 2, 4\), got \[2, 2, 4\]/,
      );
      assert.throws(
        () => new nn.MultiheadAttention(6, 4),
        /embed_dim must be divisible by num_heads/,
      );
      assert.throws(
        () =>
          new nn.EmbeddingBag(4, 2).call(
            torch.tensor([[0, 1]]),
            torch.tensor([0]),
          ),
        /if input is 2D, then offsets has to be None/,
      );
      assert.throws(
        () => new nn.InstanceNorm2d(2).call(torch.zeros(2, 2)),
        /expected 3D or 4D input \(got 2D input\)/,
      );
    });

    // On the CPU backend only: on SwiftShader its ~5,000 small dispatches take half a minute,
    // and every LSTM piece (forward and gradients) is checked on WebGPU by the cases above.
    if (device === "cpu")
      test("an LSTM classifier trains 6 AdamW steps like PyTorch", async () => {
        class SeqClassifier extends nn.Module {
          rnn = new nn.LSTM(4, 6, { num_layers: 2, batch_first: true });
          head = new nn.Linear(6, 3);
          forward(x) {
            const [out] = this.rnn.call(x);
            return this.head.call(out.select(1, -1));
          }
        }
        const T = LSTM_TRAIN;
        const model = new SeqClassifier();
        model.load_state_dict(
          Object.fromEntries(
            Object.entries(T.init).map(([k, v]) => [k, fromSpec(v)]),
          ),
        );
        const x = fromSpec(T.x);
        const y = torch.tensor(T.y);
        const opt = new torch.optim.AdamW(model.parameters(), { lr: T.lr });
        const losses = [];
        for (let i = 0; i < T.losses.length; i++) {
          const loss = torch.scope(() => {
            opt.zero_grad();
            const l = nn.functional.cross_entropy(model.call(x), y);
            l.backward();
            return l;
          });
          opt.step();
          losses.push(await loss.item());
        }
        assertClose(losses, T.losses, 1e-4, "losses");
        const sd = model.state_dict();
        for (const [k, v] of Object.entries(T.final))
          assertClose(await sd[k].toArray(), v, 1e-4, k);
      });

    test("generate_square_subsequent_mask", async () => {
      const m = nn.Transformer.generate_square_subsequent_mask(3);
      assert.deepEqual(await m.tolist(), [
        [0, -Infinity, -Infinity],
        [0, 0, -Infinity],
        [0, 0, 0],
      ]);
    });
  });
}
