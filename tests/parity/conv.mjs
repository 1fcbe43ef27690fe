/**
 * The JS runner's calls for the convolution family (convolutions, their transposes, pooling,
 * batch_norm, pad): the twin of fixture_conv.py. Returns `undefined` for other ops; batch_norm
 * with running statistics returns `[y, running_mean, running_var]`.
 */

export function callConv(torch, op, a, inputs) {
  const F = torch.nn.functional;
  const [x] = inputs;
  const d = (v, dflt) => (v === undefined ? dflt : v);
  switch (op) {
    case "conv1d":
    case "conv2d":
    case "conv3d":
      return F[op](
        x,
        inputs[1],
        inputs[2] ?? null,
        d(a.stride, 1),
        d(a.padding, 0),
        d(a.dilation, 1),
        d(a.groups, 1),
      );
    case "conv_transpose1d":
    case "conv_transpose2d":
      return F[op](
        x,
        inputs[1],
        inputs[2] ?? null,
        d(a.stride, 1),
        d(a.padding, 0),
        d(a.output_padding, 0),
        d(a.groups, 1),
        d(a.dilation, 1),
      );
    case "max_pool1d":
    case "max_pool2d":
      return F[op](
        x,
        a.kernel_size,
        d(a.stride, null),
        d(a.padding, 0),
        d(a.dilation, 1),
        d(a.ceil_mode, false),
      );
    case "avg_pool1d":
    case "avg_pool2d":
      return F[op](
        x,
        a.kernel_size,
        d(a.stride, null),
        d(a.padding, 0),
        d(a.ceil_mode, false),
        d(a.count_include_pad, true),
        ...(op === "avg_pool2d" ? [d(a.divisor_override, null)] : []),
      );
    case "adaptive_avg_pool1d":
    case "adaptive_avg_pool2d":
      return F[op](x, a.output_size);
    case "pad":
      return F.pad(x, a.pad, d(a.mode, "constant"), d(a.value, null));
    // The TS-only ops (fixture_conv.py's CONV_TS_CALLS).
    case "conv_transpose3d":
      return F.conv_transpose3d(
        x,
        inputs[1],
        inputs[2] ?? null,
        d(a.stride, 1),
        d(a.padding, 0),
        d(a.output_padding, 0),
        d(a.groups, 1),
        d(a.dilation, 1),
      );
    case "max_pool3d":
      return F.max_pool3d(
        x,
        a.kernel_size,
        d(a.stride, null),
        d(a.padding, 0),
        d(a.dilation, 1),
        d(a.ceil_mode, false),
      );
    case "max_pool1d_with_indices":
    case "max_pool2d_with_indices":
    case "max_pool3d_with_indices":
      return F[op.replace("_with_indices", "")](
        x,
        a.kernel_size,
        d(a.stride, null),
        d(a.padding, 0),
        d(a.dilation, 1),
        d(a.ceil_mode, false),
        true,
      );
    case "avg_pool3d":
      return F.avg_pool3d(
        x,
        a.kernel_size,
        d(a.stride, null),
        d(a.padding, 0),
        d(a.ceil_mode, false),
        d(a.count_include_pad, true),
        d(a.divisor_override, null),
      );
    case "adaptive_avg_pool3d":
      return F.adaptive_avg_pool3d(x, a.output_size);
    case "adaptive_max_pool1d":
    case "adaptive_max_pool2d":
    case "adaptive_max_pool3d":
      return F[op](x, a.output_size, d(a.return_indices, false));
    case "max_unpool1d":
    case "max_unpool2d":
    case "max_unpool3d":
      return F[op](
        x,
        inputs[1],
        a.kernel_size,
        d(a.stride, null),
        d(a.padding, 0),
        d(a.output_size, null),
      );
    case "constant_pad_nd":
      return torch.constant_pad_nd(x, a.pad, d(a.value, 0));
    case "batch_norm": {
      const rest = inputs.slice(1);
      const w = a.weight ? rest.shift() : null;
      const b = a.bias ? rest.shift() : null;
      const c = x.shape[1];
      const stat = (v) =>
        v === undefined
          ? null
          : torch.full([c], v, { dtype: "float32", device: x.device });
      const rm = stat(a.running_mean);
      const rv = stat(a.running_var);
      const y = F.batch_norm(
        x,
        rm,
        rv,
        w,
        b,
        d(a.training, false),
        d(a.momentum, 0.1),
        d(a.eps, 1e-5),
      );
      return rm ? [y, rm, rv] : y;
    }
  }
  return undefined;
}
