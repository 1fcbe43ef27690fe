//! The native parity runner's calls for the hand-written kernel families (reductions beyond
//! sum/mean, row-wise NN kernels, where/masked_fill, joining and indexing): the twin of
//! `tests/parity/fixture_kernels.py`. A tuple result (`max(dim)`) is several tensors.

use serde_json::Value;
use webtorch::autograd::kernels as agk;
use webtorch::autograd::scan as ags;
use webtorch::tensor::TensorOrScalar;
use webtorch::{Device, Tensor};

use crate::{build, ints, num, Arg};

fn dims(args: &Value) -> Vec<i64> {
    match (args.get("dim"), args.get("dims")) {
        (Some(d), _) => vec![d.as_i64().unwrap()],
        (_, Some(ds)) => ints(ds),
        _ => vec![],
    }
}

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
    let args = &case["args"];
    let keep = args.get("keepdim").and_then(|k| k.as_bool()).unwrap_or(false);
    let one = |r: webtorch::Result<Tensor>| Some(r.map(|t| vec![t]));
    let known = "prod amax amin max min argmax argmin all any var std logsumexp norm count_nonzero \
                 softmax log_softmax layer_norm rms_norm where masked_fill index_select gather take_along_dim cat stack scatter scatter_add \
                 cumsum cumprod logcumsumexp cummax cummin sort argsort searchsorted";
    if !known.split_whitespace().any(|k| k == op) {
        return None;
    }
    let mut inputs: Vec<Arg> = vec![];
    for spec in case["inputs"].as_array().unwrap() {
        match build(spec, dev, leaves.as_deref_mut()) {
            Ok(a) => inputs.push(a),
            Err(e) => return Some(Err(e)),
        }
    }
    let tensor = |a: &Arg| match a {
        Arg::T(t) => t.clone(),
        Arg::S(..) => panic!("{op}: scalar operand"),
    };
    if op == "cat" || op == "stack" {
        let ts: Vec<Tensor> = inputs.iter().map(tensor).collect();
        let refs: Vec<&Tensor> = ts.iter().collect();
        let dim = args.get("dim").map_or(0, |d| d.as_i64().unwrap());
        return one(if op == "cat" { agk::cat(&refs, dim) } else { agk::stack(&refs, dim) });
    }
    if op == "where" {
        fn side(a: &Arg) -> TensorOrScalar<'_> {
            match a {
                Arg::T(t) => TensorOrScalar::Tensor(t),
                Arg::S(x, k) => TensorOrScalar::Scalar(*x, *k),
            }
        }
        let Arg::T(cond) = &inputs[0] else { panic!("where: scalar condition") };
        return one(agk::where_(cond, side(&inputs[1]), side(&inputs[2])));
    }
    let x = match &inputs[0] {
        Arg::T(t) => t,
        Arg::S(..) => panic!("{op}: scalar input"),
    };
    let d = dims(args);
    let dim = args.get("dim").map(|v| v.as_i64().unwrap());
    match op {
        "prod" => one(agk::prod(x, &d, keep)),
        "amax" => one(agk::amax(x, &d, keep)),
        "amin" => one(agk::amin(x, &d, keep)),
        "max" | "min" => match dim {
            None => one(if op == "max" { agk::max_all(x) } else { agk::min_all(x) }),
            Some(dim) => {
                let r = agk::extreme_dim(x, dim, keep, op == "max");
                Some(r.map(|(v, i)| vec![v, i]))
            }
        },
        "argmax" => one(x.argmax(dim, keep)),
        "argmin" => one(x.argmin(dim, keep)),
        "all" => one(x.all(&d, keep)),
        "any" => one(x.any(&d, keep)),
        "var" | "std" => {
            let corr = args.get("correction").map_or(1.0, num);
            one(if op == "var" { agk::var(x, &d, corr, keep) } else { agk::std(x, &d, corr, keep) })
        }
        "logsumexp" => one(agk::logsumexp(x, &d, keep)),
        "norm" => one(agk::norm(x, args.get("p").map_or(2.0, num), &d, keep)),
        "count_nonzero" => one(x.count_nonzero(&d)),
        "masked_fill" => match &inputs[1] {
            Arg::T(mask) => one(agk::masked_fill(x, mask, num(&args["value"]))),
            Arg::S(..) => panic!("masked_fill: scalar mask"),
        },
        "index_select" => one(agk::index_select(x, dim.unwrap(), &tensor(&inputs[1]))),
        "gather" => one(agk::gather(x, dim.unwrap(), &tensor(&inputs[1]))),
        "take_along_dim" => one(agk::take_along_dim(x, &tensor(&inputs[1]), dim)),
        "scatter" | "scatter_add" => {
            let (d, index) = (dim.unwrap(), tensor(&inputs[1]));
            one(match (inputs.get(2), op) {
                (Some(src), "scatter") => agk::scatter(x, d, &index, &tensor(src)),
                (Some(src), _) => agk::scatter_add(x, d, &index, &tensor(src)),
                (None, _) => agk::scatter_value(x, d, &index, num(&args["value"])),
            })
        }
        "cumsum" | "cumprod" => {
            let dt = args.get("out_dtype").map(|d| crate::dtype(d.as_str().unwrap()));
            one(if op == "cumsum" { ags::cumsum(x, dim.unwrap(), dt) } else { ags::cumprod(x, dim.unwrap(), dt) })
        }
        "logcumsumexp" => one(ags::logcumsumexp(x, dim.unwrap())),
        "cummax" | "cummin" => Some(ags::cumextreme(x, dim.unwrap(), op == "cummax").map(|(v, i)| vec![v, i])),
        "sort" | "argsort" => {
            let desc = args.get("descending").and_then(|v| v.as_bool()).unwrap_or(false);
            let r = ags::sort(x, dim.unwrap_or(-1), desc);
            Some(r.map(|(v, i)| if op == "sort" { vec![v, i] } else { vec![i] }))
        }
        "searchsorted" => {
            let flag = |k: &str| args.get(k).and_then(|v| v.as_bool()).unwrap_or(false);
            one(x.searchsorted(&tensor(&inputs[1]), flag("right"), flag("out_int32")))
        }
        "softmax" => one(agk::softmax(x, dim.unwrap())),
        "log_softmax" => one(agk::log_softmax(x, dim.unwrap())),
        "layer_norm" | "rms_norm" => {
            // Optional weight/bias follow the input, as flagged in the args.
            let mut rest = inputs[1..].iter().map(|a| match a {
                Arg::T(t) => t,
                Arg::S(..) => panic!("{op}: scalar parameter"),
            });
            let flag = |k: &str| args.get(k).and_then(|v| v.as_bool()).unwrap_or(false);
            let w = if flag("weight") { rest.next() } else { None };
            let b = if flag("bias") { rest.next() } else { None };
            let shape: Vec<usize> = ints(&args["normalized_shape"]).into_iter().map(|s| s as usize).collect();
            let eps = args.get("eps").map(num);
            one(if op == "layer_norm" {
                agk::layer_norm(x, &shape, w, b, eps.unwrap_or(1e-5))
            } else {
                agk::rms_norm(x, &shape, w, eps)
            })
        }
        _ => None,
    }
}
