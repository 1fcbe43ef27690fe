//! The native parity runner's calls for the convolution family (convolutions, their transposes,
//! pooling, batch_norm, pad): the twin of `tests/parity/fixture_conv.py`.

use serde_json::Value;
use webtorch::autograd::{conv as agc, pool};
use webtorch::tensor::conv::Padding;
use webtorch::{DType, Device, Tensor};

use crate::{build, ints, num, Arg};

/// The case's result, or `None` when `op` is not one of these families.
pub fn run(case: &Value, dev: Device) -> Option<webtorch::Result<Vec<Tensor>>> {
    run_with(case, dev, None)
}

/// `run` through the differentiable ops; with `leaves`, float inputs are built to require grad.
pub fn run_with(
    case: &Value,
    dev: Device,
    mut leaves: Option<&mut Vec<Option<Tensor>>>,
) -> Option<webtorch::Result<Vec<Tensor>>> {
    let op = case["op"].as_str().unwrap();
    let known = "conv1d conv2d conv3d conv_transpose1d conv_transpose2d max_pool1d max_pool2d avg_pool1d \
                 avg_pool2d adaptive_avg_pool1d adaptive_avg_pool2d batch_norm pad";
    if !known.split_whitespace().any(|k| k == op) {
        return None;
    }
    let a = &case["args"];
    let mut inputs: Vec<Tensor> = vec![];
    for spec in case["inputs"].as_array().unwrap() {
        match build(spec, dev, leaves.as_deref_mut()) {
            Ok(Arg::T(t)) => inputs.push(t),
            Ok(Arg::S(..)) => panic!("{op}: scalar input"),
            Err(e) => return Some(Err(e)),
        }
    }
    let list = |k: &str, default: &[i64]| {
        a.get(k).map_or(default.to_vec(), |v| if v.is_array() { ints(v) } else { vec![v.as_i64().unwrap()] })
    };
    let flag = |k: &str, default: bool| a.get(k).and_then(|v| v.as_bool()).unwrap_or(default);
    let one = |r: webtorch::Result<Tensor>| Some(r.map(|t| vec![t]));
    let x = &inputs[0];
    // The pooling's dim count from its name (`max_pool2d`): an int kernel or size is one per dim.
    let k = op.trim_end_matches('d').chars().last().and_then(|c| c.to_digit(10)).unwrap_or(1) as usize;
    let per_dim = |v: Vec<i64>| if v.len() == 1 { vec![v[0]; k] } else { v };
    let groups = a.get("groups").map_or(1, |g| g.as_i64().unwrap());
    match op {
        "conv1d" | "conv2d" | "conv3d" => {
            let padding = match a.get("padding") {
                Some(Value::String(s)) if s == "same" => Padding::Same,
                Some(Value::String(_)) => Padding::Valid,
                _ => Padding::Explicit(list("padding", &[0])),
            };
            one(agc::conv_nd(
                x,
                &inputs[1],
                inputs.get(2),
                &list("stride", &[1]),
                &padding,
                &list("dilation", &[1]),
                groups,
            ))
        }
        "conv_transpose1d" | "conv_transpose2d" => one(agc::conv_transpose_nd(
            x,
            &inputs[1],
            inputs.get(2),
            &list("stride", &[1]),
            &list("padding", &[0]),
            &list("output_padding", &[0]),
            groups,
            &list("dilation", &[1]),
        )),
        "max_pool1d" | "max_pool2d" => one(pool::max_pool(
            x,
            &per_dim(list("kernel_size", &[])),
            &list("stride", &[]),
            &list("padding", &[0]),
            &list("dilation", &[1]),
            flag("ceil_mode", false),
        )),
        "avg_pool1d" | "avg_pool2d" => one(pool::avg_pool(
            x,
            &per_dim(list("kernel_size", &[])),
            &list("stride", &[]),
            &list("padding", &[0]),
            flag("ceil_mode", false),
            flag("count_include_pad", true),
            a.get("divisor_override").map(|v| v.as_i64().unwrap()),
        )),
        "adaptive_avg_pool1d" | "adaptive_avg_pool2d" => {
            // A null entry keeps that input size (PyTorch's `None`).
            let sizes: Vec<i64> = match &a["output_size"] {
                Value::Array(v) => {
                    let first = x.ndim().saturating_sub(v.len());
                    v.iter()
                        .enumerate()
                        .map(|(i, s)| s.as_i64().unwrap_or(*x.shape().get(first + i).unwrap_or(&0) as i64))
                        .collect()
                }
                v => vec![v.as_i64().unwrap(); k],
            };
            one(pool::adaptive_avg_pool(x, &sizes))
        }
        "pad" => {
            let p = list("pad", &[]);
            // F.pad's own checks of its arguments (ts/src/ops/conv.ts `pad`, PyTorch's messages).
            let mode = a.get("mode").and_then(|m| m.as_str()).unwrap_or("constant");
            let fail = |m: String| Some(Err(webtorch::err!(Torch, "{m}")));
            if p.len() % 2 != 0 {
                return fail("Padding length must be divisible by 2".into());
            }
            if p.len() / 2 > x.ndim() {
                return fail(format!("Padding length should be less than or equal to two times the input dimension but got padding length {} and input of dimension {}", p.len(), x.ndim()));
            }
            if !["constant", "reflect", "replicate", "circular"].contains(&mode) {
                return fail(format!("Unrecognised padding mode {mode}"));
            }
            if mode == "reflect" {
                for (i, c) in p.chunks(2).enumerate() {
                    let d = x.ndim() - 1 - i;
                    let n = x.shape()[d] as i64;
                    if c[0] >= n || c[1] >= n {
                        return fail(format!(
                            "Argument #{}: Padding size should be less than the corresponding input dimension, but got: padding ({}, {}) at dimension {d} of input {}",
                            4 + 2 * i,
                            c[0],
                            c[1],
                            webtorch::shape::fmt_shape(x.shape())
                        ));
                    }
                }
            }
            let spec: Vec<(i64, i64, usize)> = p.chunks(2).rev().map(|c| (c[0], c[1], 0)).collect();
            match a.get("mode").and_then(|m| m.as_str()).unwrap_or("constant") {
                "constant" => one(agc::pad(x, &spec, a.get("value").map_or(0.0, num))),
                m => one(agc::pad_mode(
                    x,
                    &p,
                    ["reflect", "replicate", "circular"].iter().position(|&n| n == m).unwrap() as u32 + 1,
                )),
            }
        }
        "batch_norm" => {
            let mut rest = inputs[1..].iter();
            let w = if flag("weight", false) { rest.next() } else { None };
            let b = if flag("bias", false) { rest.next() } else { None };
            let c = x.shape().get(1).copied().unwrap_or(0);
            let stat = |k: &str| a.get(k).map(|v| Tensor::full(&[c], num(v), DType::Float32, dev).unwrap());
            let (rm, rv) = (stat("running_mean"), stat("running_var"));
            let y = pool::batch_norm(
                x,
                rm.as_ref(),
                rv.as_ref(),
                w,
                b,
                flag("training", false),
                a.get("momentum").map_or(0.1, num),
                a.get("eps").map_or(1e-5, num),
            );
            Some(y.map(|y| [Some(y), rm, rv].into_iter().flatten().collect()))
        }
        _ => None,
    }
}
