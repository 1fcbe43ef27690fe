"""Module parity fixtures from real PyTorch (tests/node/nn_modules.test.mjs reads them).

Writes tests/parity/fixtures/train/nn_modules.json: for each case, the module's state_dict (its
PyTorch key names, in order, and values from a fixed seed), the inputs, the outputs, and the
gradients of every parameter and float input for the loss sum_k (out_k * w_k).sum(), where w_k
is linspace(-1, 1) over output k's elements. The JS test builds the same module, loads the state
dict strictly (so names and shapes must match PyTorch's), and compares everything.

Also writes lstm_train.json: a 2-layer LSTM + Linear sequence classifier trained 6 AdamW steps
(initial state dict, batch, per-step losses, final weights).

Run: .venv-torch/bin/python tests/parity/nn_gen.py
"""

import json
from pathlib import Path

import torch
from torch import nn
import torch.nn.functional as F

OUT = Path(__file__).parent / "fixtures" / "train" / "nn_modules.json"


def flat(t):
    return [float(f"{v:.7g}") for v in t.detach().reshape(-1).float().tolist()]


def spec(t):
    d = {"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch.")}
    d["data"] = flat(t) if t.is_floating_point() else [int(v) for v in t.reshape(-1).tolist()]
    return d


def rn(*shape):
    return torch.randn(*shape, generator=GEN)


def rp(*shape):
    """The pooling cases' inputs: their own generator, so they move no other case's."""
    return torch.randn(*shape, generator=GEN_POOL)


GEN = torch.Generator().manual_seed(0)
GEN_POOL = torch.Generator().manual_seed(31)


class Const:
    """An input that does not require grad (a target PyTorch cannot differentiate)."""

    def __init__(self, t):
        self.t = t


def causal(n):
    return torch.triu(torch.ones(n, n, dtype=torch.bool), 1)


# name: (module factory, inputs (list: tensors, None or lists of tensors), call kwargs, train?)
# Tensors among inputs that are floating point get gradients; nested lists hold (h0, c0).
def cases():
    L = torch.tensor
    ebag_in = L([1, 2, 4, 5, 4, 3, 2, 9])
    ebag_off = L([0, 2, 2, 5])
    return {
        "GroupNorm": (lambda: nn.GroupNorm(2, 4), [rn(2, 4, 3)], {}, True),
        "GroupNorm_noaffine_4d": (lambda: nn.GroupNorm(3, 6, affine=False, eps=1e-3), [rn(2, 6, 2, 2)], {}, True),
        "InstanceNorm1d": (lambda: nn.InstanceNorm1d(3), [rn(2, 3, 5)], {}, True),
        "InstanceNorm1d_unbatched_affine": (lambda: nn.InstanceNorm1d(3, affine=True), [rn(3, 4)], {}, True),
        "InstanceNorm2d_running": (
            lambda: nn.InstanceNorm2d(2, affine=True, track_running_stats=True, momentum=0.2),
            [rn(2, 2, 3, 3)], {}, True),
        "InstanceNorm2d_running_eval": (
            lambda: nn.InstanceNorm2d(2, track_running_stats=True), [rn(2, 2, 3, 3)], {}, False),
        "Bilinear": (lambda: nn.Bilinear(3, 4, 2), [rn(5, 3), rn(5, 4)], {}, True),
        "Bilinear_nobias_3d": (lambda: nn.Bilinear(2, 3, 2, bias=False), [rn(2, 2, 2), rn(2, 2, 3)], {}, True),
        "EmbeddingBag_mean_offsets": (lambda: nn.EmbeddingBag(10, 3), [ebag_in, ebag_off], {}, True),
        "EmbeddingBag_sum_weights": (
            lambda: nn.EmbeddingBag(10, 3, mode="sum"), [ebag_in, ebag_off],
            {"per_sample_weights": rn(8)}, True),
        "EmbeddingBag_max_2d": (lambda: nn.EmbeddingBag(10, 3, mode="max"), [L([[1, 2, 3], [4, 4, 0]])], {}, True),
        "EmbeddingBag_padding_last_offset": (
            lambda: nn.EmbeddingBag(10, 3, mode="mean", padding_idx=4, include_last_offset=True),
            [ebag_in, L([0, 2, 2, 5, 8])], {}, True),
        "RNN_tanh_2layer_h0": (lambda: nn.RNN(3, 4, num_layers=2), [rn(5, 2, 3), rn(2, 2, 4)], {}, True),
        "RNN_relu_bidir_batch_first": (
            lambda: nn.RNN(3, 4, nonlinearity="relu", bidirectional=True, batch_first=True),
            [rn(2, 4, 3)], {}, True),
        "LSTM_2layer_bidir": (lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True), [rn(4, 2, 3)], {}, True),
        "LSTM_batch_first_state": (
            lambda: nn.LSTM(3, 4, batch_first=True), [rn(2, 3, 3), [rn(1, 2, 4), rn(1, 2, 4)]], {}, True),
        "LSTM_proj_unbatched": (lambda: nn.LSTM(3, 4, proj_size=2, bias=False), [rn(3, 3)], {}, True),
        "GRU_2layer": (lambda: nn.GRU(3, 4, num_layers=2), [rn(4, 2, 3), rn(2, 2, 4)], {}, True),
        "GRU_bidir_batch_first": (lambda: nn.GRU(2, 3, bidirectional=True, batch_first=True), [rn(2, 3, 2)], {}, True),
        "RNNCell": (lambda: nn.RNNCell(3, 4), [rn(2, 3), rn(2, 4)], {}, True),
        "LSTMCell": (lambda: nn.LSTMCell(3, 4), [rn(2, 3), [rn(2, 4), rn(2, 4)]], {}, True),
        "GRUCell_no_hidden": (lambda: nn.GRUCell(3, 4), [rn(2, 3)], {}, True),
        "MultiheadAttention_self_padding": (
            lambda: nn.MultiheadAttention(8, 2),
            [X := rn(4, 2, 8), X, X], {"key_padding_mask": L([[False, False, False, True], [False, True, True, True]])},
            True),
        "MultiheadAttention_batch_first_causal_heads": (
            lambda: nn.MultiheadAttention(8, 2, batch_first=True),
            [rn(2, 3, 8), rn(2, 3, 8), rn(2, 3, 8)],
            {"attn_mask": causal(3), "average_attn_weights": False}, True),
        "MultiheadAttention_kdim_vdim_float_mask": (
            lambda: nn.MultiheadAttention(4, 1, kdim=3, vdim=5, bias=False),
            [rn(2, 2, 4), rn(3, 2, 3), rn(3, 2, 5)], {"attn_mask": rn(2, 3)}, True),
        "MultiheadAttention_bias_kv_zero_attn": (
            lambda: nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True),
            [rn(2, 1, 4), rn(3, 1, 4), rn(3, 1, 4)], {}, True),
        "TransformerEncoderLayer": (
            lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), [rn(3, 2, 8)], {}, True),
        "TransformerEncoderLayer_norm_first_gelu_batch_first": (
            lambda: nn.TransformerEncoderLayer(8, 2, 12, dropout=0.0, activation="gelu", batch_first=True,
                                               norm_first=True),
            [rn(2, 3, 8)], {"src_mask": causal(3)}, True),
        # The is_causal hint with no padding mask and no weights: causal attention replaces the
        # mask (webtorch: the one-kernel causal softmax).
        "MultiheadAttention_is_causal_no_weights": (
            lambda: nn.MultiheadAttention(8, 2, batch_first=True),
            [rn(2, 5, 8), rn(2, 5, 8), rn(2, 5, 8)],
            {"attn_mask": causal(5), "is_causal": True, "need_weights": False}, True),
        "TransformerEncoderLayer_is_causal": (
            lambda: nn.TransformerEncoderLayer(8, 2, 12, dropout=0.0, activation="gelu", batch_first=True,
                                               norm_first=True),
            [rn(2, 5, 8)], {"src_mask": causal(5), "is_causal": True}, True),
        "TransformerDecoderLayer": (
            lambda: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0),
            [rn(3, 2, 8), rn(4, 2, 8)], {"tgt_mask": causal(3)}, True),
        "TransformerEncoder_norm": (
            lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                          norm=nn.LayerNorm(8), enable_nested_tensor=False),
            [rn(3, 2, 8)], {"src_key_padding_mask": L([[False, False, True], [False, False, False]])}, True),
        "TransformerDecoder": (
            lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True), 2),
            [rn(3, 2, 8), rn(2, 2, 8)], {"tgt_mask": causal(3)}, True),
        "Transformer": (
            lambda: nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True),
            [rn(2, 3, 8), rn(2, 2, 8)], {"tgt_mask": causal(2)}, True),
        **losses_and_activations(),
    }


class CTCOnLogits(nn.Module):
    """CTCLoss after log_softmax: PyTorch's CTC backward is the gradient through a log_softmax
    (it adds exp(log_probs)), so logits are the inputs whose gradients can be compared."""

    def __init__(self, **kw):
        super().__init__()
        self.ctc = nn.CTCLoss(**kw)

    def forward(self, logits, *rest):
        return self.ctc(torch.nn.functional.log_softmax(logits, -1), *rest)


def losses_and_activations():
    F = torch.nn.functional
    L = torch.tensor
    sign = lambda *s: (torch.rand(*s, generator=GEN) > 0.5).float() * 2 - 1
    rand = lambda *s: torch.rand(*s, generator=GEN)
    return {
        "HuberLoss_delta": (lambda: nn.HuberLoss(delta=0.5), [rn(3, 4), rn(3, 4)], {}, True),
        "KLDivLoss_batchmean": (lambda: nn.KLDivLoss(reduction="batchmean"),
                                [F.log_softmax(rn(3, 4), 1), F.softmax(rn(3, 4), 1)], {}, True),
        "KLDivLoss_log_target_sum": (lambda: nn.KLDivLoss(reduction="sum", log_target=True),
                                     [rn(3, 4), rn(3, 4)], {}, True),
        "PoissonNLLLoss": (lambda: nn.PoissonNLLLoss(), [rn(3, 4), (rand(3, 4) * 4).floor()], {}, True),
        "PoissonNLLLoss_full_rate": (lambda: nn.PoissonNLLLoss(log_input=False, full=True),
                                     [rand(3, 4) + 0.1, Const((rand(3, 4) * 5).floor())], {}, True),
        "GaussianNLLLoss": (lambda: nn.GaussianNLLLoss(), [rn(3, 4), rn(3, 4), rand(3, 4) + 0.1], {}, True),
        "GaussianNLLLoss_full_clamped_sum": (
            lambda: nn.GaussianNLLLoss(full=True, eps=0.05, reduction="sum"),
            [rn(3, 4), rn(3, 4), L([[0.01], [0.5], [0.03]])], {}, True),
        "MarginRankingLoss": (lambda: nn.MarginRankingLoss(margin=0.2), [rn(5), rn(5), sign(5)], {}, True),
        "HingeEmbeddingLoss": (lambda: nn.HingeEmbeddingLoss(margin=0.7), [rn(2, 3), sign(2, 3)], {}, True),
        "SoftMarginLoss": (lambda: nn.SoftMarginLoss(), [rn(2, 3), Const(sign(2, 3))], {}, True),
        "MultiLabelSoftMarginLoss_weight": (lambda: nn.MultiLabelSoftMarginLoss(weight=L([0.5, 1.0, 2.0, 0.25])),
                                            [rn(3, 4), (rand(3, 4) > 0.5).float()], {}, True),
        "MultiLabelMarginLoss": (lambda: nn.MultiLabelMarginLoss(),
                                 [rn(3, 4), L([[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 0, 0]])], {}, True),
        "MultiMarginLoss": (lambda: nn.MultiMarginLoss(), [rn(3, 4), L([1, 0, 3])], {}, True),
        "MultiMarginLoss_p2_weight_sum": (
            lambda: nn.MultiMarginLoss(p=2, margin=0.5, weight=L([0.5, 1.0, 2.0, 0.25]), reduction="sum"),
            [rn(3, 4), L([1, 0, 3])], {}, True),
        "CosineEmbeddingLoss": (lambda: nn.CosineEmbeddingLoss(margin=0.1),
                                [rn(4, 3), rn(4, 3), L([1.0, -1.0, 1.0, -1.0])], {}, True),
        "TripletMarginLoss": (lambda: nn.TripletMarginLoss(margin=0.5), [rn(3, 4), rn(3, 4), rn(3, 4)], {}, True),
        "TripletMarginLoss_p1_swap": (lambda: nn.TripletMarginLoss(p=1, swap=True),
                                      [rn(3, 4), rn(3, 4), rn(3, 4)], {}, True),
        "TripletMarginWithDistanceLoss_cosine": (
            lambda: nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: 1 - F.cosine_similarity(a, b)),
            [rn(3, 4), rn(3, 4), rn(3, 4)], {}, True),
        "PairwiseDistance_p3_keepdim": (lambda: nn.PairwiseDistance(p=3, keepdim=True), [rn(3, 4), rn(3, 4)], {}, True),
        "CosineSimilarity": (lambda: nn.CosineSimilarity(dim=1), [rn(3, 4), rn(3, 4)], {}, True),
        "PReLU_channels": (lambda: nn.PReLU(3), [rn(2, 3, 2)], {}, True),
        "GLU": (lambda: nn.GLU(1), [rn(2, 4)], {}, True),
        "Hardshrink": (lambda: nn.Hardshrink(0.3), [rn(2, 4)], {}, True),
        "Softshrink": (lambda: nn.Softshrink(0.3), [rn(2, 4)], {}, True),
        "Threshold": (lambda: nn.Threshold(0.1, -2.0), [rn(2, 4)], {}, True),
        "Softmax2d": (lambda: nn.Softmax2d(), [rn(1, 3, 2, 2)], {}, True),
        "RReLU_eval": (lambda: nn.RReLU(), [rn(2, 4)], {}, False),
        "CTCLoss_padded": (lambda: CTCOnLogits(),
                           [rn(6, 2, 4), L([[1, 2, 2], [3, 1, 0]]), L([6, 5]), L([3, 2])],
                           {}, True),
        "CTCLoss_concat_blank_sum": (lambda: CTCOnLogits(blank=3, reduction="sum"),
                                     [rn(5, 2, 4), L([0, 1, 1, 2]), L([5, 4]), L([3, 1])],
                                     {}, True),
        "CTCLoss_unbatched_none": (lambda: CTCOnLogits(reduction="none"),
                                   [rn(4, 3), L([2, 1]), L([4]), L([2])], {}, True),
        "CTCLoss_zero_infinity": (lambda: CTCOnLogits(zero_infinity=True, reduction="none"),
                                  [rn(3, 2, 3), L([[1, 1, 1], [2, 1, 0]]), L([3, 3]), L([3, 2])],
                                  {}, True),
        "AdaptiveMaxPool1d": (lambda: nn.AdaptiveMaxPool1d(3), [rn(2, 2, 7)], {}, True),
        "AdaptiveMaxPool2d_none": (lambda: nn.AdaptiveMaxPool2d((2, None)), [rn(1, 2, 5, 3)], {}, True),
        "AdaptiveMaxPool2d_unbatched": (lambda: nn.AdaptiveMaxPool2d(3), [rn(2, 4, 5)], {}, True),
        "Embedding_padding_idx": (lambda: nn.Embedding(6, 3, padding_idx=2), [L([[0, 2], [2, 5]])], {}, True),
        # return_indices: [values, indices]; max unpooling of pooled values at their indices.
        "MaxPool2d_indices": (lambda: nn.MaxPool2d(2, return_indices=True), [rp(1, 2, 4, 4)], {}, True),
        "MaxPool1d_indices_padded": (lambda: nn.MaxPool1d(3, stride=2, padding=1, return_indices=True),
                                     [rp(2, 3, 7)], {}, True),
        "AdaptiveMaxPool2d_indices": (lambda: nn.AdaptiveMaxPool2d(3, return_indices=True),
                                      [rp(1, 2, 5, 4)], {}, True),
        "MaxUnpool2d": (lambda: nn.MaxUnpool2d(2),
                        list(F.max_pool2d(rp(1, 2, 4, 4), 2, return_indices=True)), {}, True),
        "MaxUnpool1d_stride_padding": (lambda: nn.MaxUnpool1d(3, stride=2, padding=1),
                                       list(F.max_pool1d(rp(2, 3, 7), 3, 2, 1, return_indices=True)),
                                       {}, True),
    }


def tensors_of(v):
    """The tensors of a (possibly nested) output, in order."""
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (list, tuple)):
        return [t for x in v for t in tensors_of(x)]
    return []


def encode_input(v):
    if v is None:
        return None
    if isinstance(v, Const):
        return {**spec(v.t), "const": True}
    if isinstance(v, list):
        return [encode_input(x) for x in v]
    return spec(v)


def main():
    out = {}
    for name, (make, inputs, kwargs, train) in cases().items():
        torch.manual_seed(1)
        m = make()
        m.train(train)
        state = {k: spec(v) for k, v in m.state_dict().items()}
        # Leaves that get gradients: float tensors among the inputs (and nested hidden states).
        leaves = []

        def prep(v):
            if isinstance(v, Const):
                return v.t
            if isinstance(v, list):
                return tuple(prep(x) for x in v)
            if v.is_floating_point():
                t = v.clone().requires_grad_()
                leaves.append(t)
                return t
            return v

        args = [prep(v) for v in inputs]
        kw = {k: (v.clone().requires_grad_() if isinstance(v, torch.Tensor) and v.is_floating_point()
                  and k == "per_sample_weights" else v) for k, v in kwargs.items()}
        if "per_sample_weights" in kw:
            leaves.append(kw["per_sample_weights"])
        y = m(*args, **kw)
        outs = [t for t in tensors_of(y)]
        loss = sum((t * torch.linspace(-1, 1, t.numel()).reshape(t.shape)).sum() for t in outs)
        loss.backward()
        case = {
            "train": train,
            "state": state,
            "inputs": [encode_input(v) for v in inputs],
            "kwargs": {k: spec(v) if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()},
            "outputs": [spec(t) for t in outs],
            "param_grads": {k: flat(p.grad) for k, p in m.named_parameters() if p.grad is not None},
            "input_grads": [None if t.grad is None else flat(t.grad) for t in leaves],
        }
        if train and any("running" in k for k in state):
            case["state_after"] = {k: flat(v) for k, v in m.state_dict().items() if "running" in k}
        out[name] = case
    OUT.write_text(json.dumps(out, separators=(",", ":")))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(out)} cases)")


class SeqClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 6, num_layers=2, batch_first=True)
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        out, (h, c) = self.rnn(x)
        return self.head(out[:, -1])


def lstm_train():
    torch.manual_seed(5)
    model = SeqClassifier()
    init = {k: spec(v) for k, v in model.state_dict().items()}
    g = torch.Generator().manual_seed(6)
    x = torch.randn(4, 5, 4, generator=g)
    y = torch.tensor([0, 2, 1, 2])
    opt = torch.optim.AdamW(model.parameters(), lr=0.02, foreach=False)
    losses = []
    for _ in range(6):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(float(f"{loss.item():.7g}"))
    out = {"init": init, "x": spec(x), "y": y.tolist(), "lr": 0.02, "losses": losses,
           "final": {k: flat(v) for k, v in model.state_dict().items()}}
    path = OUT.parent / "lstm_train.json"
    path.write_text(json.dumps(out, separators=(",", ":")))
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
    lstm_train()
