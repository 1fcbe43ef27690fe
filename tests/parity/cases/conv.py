"""The convolution family: conv1d/conv2d (stride, padding incl. 'same'/'valid', dilation, groups,
bias, unbatched inputs, non-contiguous inputs) and conv_transpose1d/2d (output_padding), max and
average pooling 1d/2d (padding, stride, dilation, ceil_mode, count_include_pad,
divisor_override), adaptive average pooling (windows that overlap or do not divide), batch_norm
(train with running statistics, eval, affine), and their errors in PyTorch's words."""

from cases import F
from fixture import T


def build(fam, rng):
    c = fam.case

    def x(shape, view=None):
        return F(rng, shape, -2.0, 2.0, view)

    cv = "conv2d"
    c("basic", cv, [x([1, 2, 5, 5]), x([3, 2, 3, 3])])
    c("bias", cv, [x([2, 2, 4, 5]), x([3, 2, 3, 2]), x([3])])
    c("stride2", cv, [x([1, 2, 6, 7]), x([2, 2, 3, 3]), x([2])], args={"stride": 2})
    c("stride_hw", cv, [x([1, 1, 7, 6]), x([2, 1, 2, 3])], args={"stride": [2, 1]})
    c("padding1", cv, [x([1, 2, 4, 4]), x([2, 2, 3, 3]), x([2])], args={"padding": 1})
    c("padding_hw", cv, [x([1, 1, 4, 5]), x([2, 1, 3, 3])], args={"padding": [2, 0]})
    c("same", cv, [x([1, 2, 5, 4]), x([2, 2, 3, 3])], args={"padding": "same"})
    c("same_even_kernel", cv, [x([1, 1, 5, 5]), x([2, 1, 4, 2])], args={"padding": "same"})
    c("same_dilated", cv, [x([1, 1, 6, 6]), x([1, 1, 3, 3])], args={"padding": "same", "dilation": 2})
    c("valid", cv, [x([1, 2, 4, 4]), x([2, 2, 2, 2])], args={"padding": "valid"})
    c("dilation2", cv, [x([1, 2, 7, 7]), x([2, 2, 3, 3])], args={"dilation": 2})
    c("stride_pad_dilation", cv, [x([2, 1, 8, 7]), x([2, 1, 3, 2]), x([2])],
      args={"stride": 2, "padding": 1, "dilation": [2, 1]})
    c("groups2", cv, [x([1, 4, 5, 5]), x([4, 2, 3, 3]), x([4])], args={"groups": 2})
    c("depthwise", cv, [x([1, 3, 5, 5]), x([3, 1, 3, 3])], args={"groups": 3, "padding": 1})
    c("groups_stride", cv, [x([2, 4, 6, 6]), x([2, 2, 2, 2])], args={"groups": 2, "stride": 2})
    c("1x1", cv, [x([2, 3, 3, 3]), x([4, 3, 1, 1]), x([4])])
    c("unbatched", cv, [x([2, 4, 4]), x([3, 2, 3, 3]), x([3])], args={"padding": 1})
    c("transposed_input", cv, [x([1, 2, 5, 4], [("transpose", [2, 3])]), x([2, 2, 3, 3])])
    c("larger", cv, [x([2, 3, 16, 16]), x([8, 3, 3, 3]), x([8])], args={"padding": 1})
    c("rank_error", cv, [x([2, 3]), x([3, 2, 3, 3])], error="ShapeError")
    c("channels_error", cv, [x([1, 3, 5, 5]), x([4, 2, 3, 3])], error="ShapeError")
    c("kernel_too_big", cv, [x([1, 2, 3, 3]), x([4, 2, 4, 4])], error="ShapeError")
    c("groups_divisible", cv, [x([1, 2, 5, 5]), x([3, 1, 3, 3])], args={"groups": 2}, error="ShapeError")
    c("same_strided", cv, [x([1, 2, 5, 5]), x([4, 2, 3, 3])], args={"padding": "same", "stride": 2},
      error="TorchError")
    c("negative_padding", cv, [x([1, 2, 5, 5]), x([4, 2, 3, 3])], args={"padding": -1}, error="TorchError")
    c("bias_size", cv, [x([1, 2, 5, 5]), x([4, 2, 3, 3]), x([3])], error="ShapeError")
    c("stride_length", cv, [x([1, 2, 5, 5]), x([4, 2, 3, 3])], args={"stride": [1, 1, 1]},
      error="TorchError")

    c1 = "conv1d"
    c("basic", c1, [x([2, 2, 7]), x([3, 2, 3]), x([3])])
    c("stride_pad", c1, [x([1, 3, 9]), x([2, 3, 4])], args={"stride": 2, "padding": 2})
    c("dilation_groups", c1, [x([1, 4, 9]), x([4, 2, 2]), x([4])], args={"dilation": 3, "groups": 2})
    c("same", c1, [x([1, 2, 6]), x([2, 2, 4])], args={"padding": "same"})
    c("unbatched", c1, [x([2, 5]), x([3, 2, 2])])
    c("rank_error", c1, [x([2, 3, 4, 5]), x([4, 3, 2])], error="ShapeError")

    ct = "conv_transpose2d"
    c("basic", ct, [x([1, 2, 3, 3]), x([2, 3, 3, 3])])
    c("stride2_bias", ct, [x([1, 2, 3, 4]), x([2, 2, 3, 3]), x([2])], args={"stride": 2})
    c("stride_pad_outpad", ct, [x([2, 1, 3, 3]), x([1, 2, 3, 2])],
      args={"stride": 2, "padding": 1, "output_padding": 1})
    c("groups_dilation", ct, [x([1, 4, 3, 3]), x([4, 1, 2, 2]), x([2])],
      args={"groups": 2, "dilation": 2, "stride": [1, 2]})
    c("unbatched", ct, [x([2, 3, 3]), x([2, 1, 2, 2])], args={"stride": 2})
    c("channels_error", ct, [x([1, 2, 5, 5]), x([3, 2, 3, 3])], error="ShapeError")
    c("output_padding_error", ct, [x([1, 2, 5, 5]), x([2, 2, 3, 3])], args={"stride": 2, "output_padding": 2},
      error="TorchError")
    c1t = "conv_transpose1d"
    c("basic", c1t, [x([1, 2, 5]), x([2, 3, 3]), x([3])], args={"stride": 3, "padding": 1})

    for op in ("max_pool2d", "avg_pool2d"):
        c("k2", op, [x([1, 2, 4, 4])], args={"kernel_size": [2, 2]})
        c("k3_s2_p1", op, [x([2, 1, 5, 6])], args={"kernel_size": [3, 3], "stride": [2, 2], "padding": [1, 1]})
        c("k_hw", op, [x([1, 2, 5, 7])], args={"kernel_size": [2, 3], "stride": [1, 2]})
        c("ceil_mode", op, [x([1, 1, 5, 5])], args={"kernel_size": [2, 2], "ceil_mode": True})
        c("ceil_mode_pad", op, [x([1, 1, 6, 7])],
          args={"kernel_size": [3, 3], "stride": [2, 2], "padding": [1, 1], "ceil_mode": True})
        c("unbatched", op, [x([2, 4, 4])], args={"kernel_size": [3, 3], "stride": [1, 1]})
        c("transposed", op, [x([1, 2, 4, 6], [("transpose", [2, 3])])], args={"kernel_size": [2, 2]})
        c("too_small", op, [x([1, 2, 5, 5])], args={"kernel_size": [6, 6]}, error="TorchError")
        c("pad_too_big", op, [x([1, 2, 5, 5])], args={"kernel_size": [3, 3], "padding": [2, 2]},
          error="TorchError")
    c("dilation", "max_pool2d", [x([1, 1, 7, 7])], args={"kernel_size": [3, 3], "stride": [2, 2], "dilation": [2, 2]})
    c("rank_error", "max_pool2d", [x([5])], args={"kernel_size": [2, 2]}, error="TorchError")
    c("ties", "max_pool2d", [T([1.0, 1, 2, 2, 1, 1, 2, 2, 3, 3, 0, 0, 3, 3, 0, 0], shape=[1, 1, 4, 4])],
      args={"kernel_size": [2, 2]})
    c("exclude_pad", "avg_pool2d", [x([1, 1, 5, 5])],
      args={"kernel_size": [3, 3], "stride": [2, 2], "padding": [1, 1], "count_include_pad": False})
    c("exclude_pad_ceil", "avg_pool2d", [x([1, 1, 6, 6])],
      args={"kernel_size": [3, 3], "stride": [2, 2], "padding": [1, 1], "ceil_mode": True,
            "count_include_pad": False})
    c("divisor_override", "avg_pool2d", [x([1, 1, 4, 4])], args={"kernel_size": [2, 2], "divisor_override": 3})
    c("k3", "max_pool1d", [x([2, 2, 7])], args={"kernel_size": [3], "stride": [2], "padding": [1]})
    c("dilation_ceil", "max_pool1d", [x([1, 2, 8])], args={"kernel_size": [2], "dilation": [2], "ceil_mode": True})
    c("unbatched", "max_pool1d", [x([3, 6])], args={"kernel_size": [2]})
    c("k3", "avg_pool1d", [x([2, 2, 7])], args={"kernel_size": [3], "stride": [2], "padding": [1]})
    c("exclude_pad", "avg_pool1d", [x([1, 2, 6])],
      args={"kernel_size": [3], "padding": [1], "count_include_pad": False})

    ap = "adaptive_avg_pool2d"
    c("divides", ap, [x([1, 2, 4, 6])], args={"output_size": [2, 3]})
    c("overlapping", ap, [x([2, 1, 5, 7])], args={"output_size": [3, 4]})
    c("global", ap, [x([2, 3, 3, 3])], args={"output_size": [1, 1]})
    c("upsample", ap, [x([1, 1, 2, 3])], args={"output_size": [3, 5]})
    c("unbatched", ap, [x([2, 4, 4])], args={"output_size": [2, 2]})
    c("rank_error", ap, [x([5])], args={"output_size": [2, 2]}, error="TorchError")
    c("overlapping", "adaptive_avg_pool1d", [x([2, 2, 7])], args={"output_size": [3]})

    bn = "batch_norm"
    c("train", bn, [x([4, 3])], args={"training": True, "running_mean": 0.0, "running_var": 1.0})
    c("train_4d_affine", bn, [x([2, 3, 2, 2]), x([3]), x([3])],
      args={"training": True, "weight": True, "bias": True, "running_mean": 0.5, "running_var": 2.0,
            "momentum": 0.3})
    c("train_3d", bn, [x([2, 2, 5])], args={"training": True, "running_mean": 0.0, "running_var": 1.0, "eps": 0.01})
    c("train_no_running", bn, [x([3, 2, 2])], args={"training": True})
    c("eval", bn, [x([3, 4]), x([4]), x([4])],
      args={"training": False, "weight": True, "bias": True, "running_mean": 0.25, "running_var": 1.5})
    c("eval_4d", bn, [x([2, 2, 3, 3])], args={"training": False, "running_mean": -0.5, "running_var": 0.5})
    c("one_value", bn, [x([1, 3])], args={"training": True, "running_mean": 0.0, "running_var": 1.0},
      error="TorchError")

    pd = "pad"
    c("constant_last", pd, [x([2, 3])], args={"pad": [1, 2]})
    c("constant_two_dims_value", pd, [x([1, 2, 3])], args={"pad": [1, 0, 2, 1], "value": 1.5})
    c("constant_negative", pd, [x([3, 5])], args={"pad": [-1, 2, 0, -1]})
    for mode in ("reflect", "replicate", "circular"):
        c(f"{mode}_1d", pd, [x([1, 2, 5])], args={"pad": [2, 1], "mode": mode})
        c(f"{mode}_2d", pd, [x([1, 1, 3, 4])], args={"pad": [1, 2, 2, 1], "mode": mode})
    c("circular_negative", pd, [x([1, 1, 5])], args={"pad": [-1, 2], "mode": "circular"})
