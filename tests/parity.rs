#![cfg(not(target_arch = "wasm32"))]
//! Parity with PyTorch, natively: replays `tests/parity/fixtures/*.json` (written by real PyTorch,
//! see tests/parity/README.md) on the engine's CPU backend and on wgpu (Mesa lavapipe here), and
//! writes an op × backend report to `target/parity-native.md`. The JS runner
//! (`tests/parity/run.mjs`) replays the same files through the TS API in Node and Chromium.

mod common;
#[path = "parity/conv.rs"]
mod conv;
#[path = "parity/kernels.rs"]
mod kernels;

use std::collections::BTreeMap;

use common::devices;
use serde_json::Value;
use webtorch::autograd::{self, ops as ag};
use webtorch::dtype::ScalarKind;
use webtorch::{DType, Device, Error, ErrorKind, Op, Tensor};

fn dtype(name: &str) -> DType {
    DType::ALL.into_iter().find(|d| d.name() == name).unwrap_or_else(|| panic!("dtype {name}"))
}

fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::Bool(b) => *b as u8 as f64,
        Value::String(s) => match s.as_str() {
            "nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            _ => panic!("bad number {s}"),
        },
        _ => panic!("bad number {v}"),
    }
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()
}

fn usizes(v: &Value) -> Vec<usize> {
    ints(v).into_iter().map(|x| x as usize).collect()
}

enum Arg {
    T(Tensor),
    S(f64, ScalarKind),
}

/// An input as the spec describes it; with `leaves`, float inputs are built from a base tensor
/// that requires grad (pushed to `leaves`, `None` for other inputs) and then viewed.
fn build(spec: &Value, dev: Device, leaves: Option<&mut Vec<Option<Tensor>>>) -> webtorch::Result<Arg> {
    if let Some(s) = spec.get("scalar") {
        if let Some(l) = leaves {
            l.push(None);
        }
        let kind = if s.is_boolean() { ScalarKind::Bool } else { ScalarKind::of(num(s)) };
        return Ok(Arg::S(num(s), kind));
    }
    let data: Vec<f64> = spec["data"].as_array().unwrap().iter().map(num).collect();
    let mut t = Tensor::from_f64(&data, &usizes(&spec["shape"]), dtype(spec["dtype"].as_str().unwrap()), dev)?;
    if let Some(l) = leaves {
        if t.dtype == DType::Float32 {
            t.set_requires_grad(true)?;
            l.push(Some(t.clone()));
        } else {
            l.push(None);
        }
    }
    for step in spec.get("view").and_then(|v| v.as_array()).into_iter().flatten() {
        let (name, a) = (step[0].as_str().unwrap(), &step[1]);
        t = match name {
            "transpose" => ag::transpose(&t, a[0].as_i64().unwrap(), a[1].as_i64().unwrap())?,
            "permute" => ag::permute(&t, &ints(a))?,
            "expand" => ag::expand(&t, &ints(a))?,
            "t" => ag::t(&t)?,
            "slice" => {
                let a = ints(a);
                ag::slice(&t, a[0], Some(a[1]), Some(a[2]), a[3])?
            }
            _ => panic!("view step {name}"),
        };
    }
    Ok(Arg::T(t))
}

/// Nested JSON data → (flat values, shape, inferred dtype as `torch.tensor` infers it).
fn flatten(v: &Value, out: &mut Vec<Value>, shape: &mut Vec<usize>, depth: usize) {
    if let Some(items) = v.as_array() {
        if shape.len() == depth {
            shape.push(items.len());
        }
        for x in items {
            flatten(x, out, shape, depth + 1);
        }
    } else {
        out.push(v.clone());
    }
}

/// `torch.tensor`'s inference: all bools → bool; bools and integers → int64; else float32
/// (an empty list is float32).
fn infer(values: &[Value]) -> DType {
    if values.is_empty() {
        DType::Float32
    } else if values.iter().all(|v| v.is_boolean()) {
        DType::Bool
    } else if values.iter().all(|v| v.is_boolean() || v.as_f64().is_some_and(|x| x.fract() == 0.0)) {
        DType::Int64
    } else {
        DType::Float32
    }
}

fn opt_dtype(args: &Value, default: DType) -> DType {
    args.get("dtype").and_then(|d| d.as_str()).map_or(default, dtype)
}

/// Runs a case through the differentiable ops; with `leaves`, float inputs require grad.
fn run_case(case: &Value, dev: Device, mut leaves: Option<&mut Vec<Option<Tensor>>>) -> webtorch::Result<Tensor> {
    let op = case["op"].as_str().unwrap();
    let args = &case["args"];
    let mut inputs: Vec<Arg> = vec![];
    for spec in case["inputs"].as_array().unwrap() {
        inputs.push(build(spec, dev, leaves.as_deref_mut())?);
    }
    let t0 = || match &inputs[0] {
        Arg::T(t) => t,
        Arg::S(..) => panic!("{op}: scalar first operand of a unary op"),
    };
    let shape_arg = |k: &str| ints(&args[k]);
    match op {
        "tensor" => {
            let (mut flat, mut shape) = (vec![], vec![]);
            flatten(&args["data"], &mut flat, &mut shape, 0);
            let d = opt_dtype(args, infer(&flat));
            Tensor::from_f64(&flat.iter().map(num).collect::<Vec<_>>(), &shape, d, dev)
        }
        "zeros" | "ones" | "full" => {
            let fill = match op {
                "zeros" => Value::from(0.0),
                "ones" => Value::from(1.0),
                _ => args["fill_value"].clone(),
            };
            let inferred = if op != "full" { DType::Float32 } else { infer(std::slice::from_ref(&fill)) };
            let shape: Vec<usize> = usizes(&args["shape"]);
            Tensor::full(&shape, num(&fill), opt_dtype(args, inferred), dev)
        }
        "arange" => {
            let get = |k: &str, d: f64| args.get(k).map_or(d, num);
            let (start, end, step) = (get("start", 0.0), get("end", 0.0), get("step", 1.0));
            let all_int = ["start", "end", "step"]
                .iter()
                .all(|k| args.get(*k).is_none_or(|v| v.as_f64().is_some_and(|x| x.fract() == 0.0)));
            Tensor::arange(start, end, step, opt_dtype(args, if all_int { DType::Int64 } else { DType::Float32 }), dev)
        }
        "sum" | "mean" => {
            let dims = match (args.get("dim"), args.get("dims")) {
                (Some(d), _) => vec![d.as_i64().unwrap()],
                (_, Some(ds)) => ints(ds),
                _ => vec![],
            };
            let keep = args.get("keepdim").and_then(|k| k.as_bool()).unwrap_or(false);
            if op == "sum" {
                ag::sum(t0(), &dims, keep)
            } else {
                ag::mean(t0(), &dims, keep)
            }
        }
        "matmul" => match (&inputs[0], &inputs[1]) {
            (Arg::T(a), Arg::T(b)) => ag::matmul(a, b),
            _ => panic!("matmul of a scalar"),
        },
        "reshape" => ag::reshape(t0(), &shape_arg("shape")),
        "view" => ag::view(t0(), &shape_arg("shape")),
        "expand" => ag::expand(t0(), &shape_arg("shape")),
        "transpose" => ag::transpose(t0(), args["dim0"].as_i64().unwrap(), args["dim1"].as_i64().unwrap()),
        "permute" => ag::permute(t0(), &shape_arg("dims")),
        "t" => ag::t(t0()),
        "contiguous" => ag::contiguous(t0()),
        "to" => ag::to_dtype(t0(), dtype(args["dtype"].as_str().unwrap())),
        name => {
            let op = Op::by_name(name).unwrap_or_else(|| panic!("no op-table row for {name}"));
            let alpha = args.get("alpha").map(num);
            match (&inputs[..], alpha) {
                ([Arg::T(a)], _) => ag::unary(a, op),
                ([Arg::T(a), Arg::T(b)], Some(al)) => ag::add_alpha(a, b, op, al),
                ([Arg::T(a), Arg::S(s, _)], Some(al)) => ag::add_alpha_scalar(a, op, *s, al),
                ([Arg::T(a), Arg::T(b)], None) => ag::binary(a, b, op),
                ([Arg::T(a), Arg::S(s, k)], None) => ag::binary_scalar(a, op, *s, false, *k),
                ([Arg::S(s, k), Arg::T(b)], None) => ag::binary_scalar(b, op, *s, true, *k),
                _ => panic!("{name}: unexpected operands"),
            }
        }
    }
}

fn class_of(kind: ErrorKind) -> &'static str {
    kind.class_name()
}

/// `None` when the case passes, else what differed. `out` is a list for tuple results.
fn check(case: &Value, got: webtorch::Result<Vec<Tensor>>) -> Option<String> {
    let same_error = |e: &Value, Error { kind, message }: Error| {
        let want_class = e["class"].as_str().unwrap();
        let want_msg = e["message"].as_str().unwrap();
        if message != want_msg {
            return Some(format!("message {message:?}, want {want_msg:?}"));
        }
        if want_class != "TorchError" && want_class != class_of(kind) {
            return Some(format!("class {}, want {want_class}", class_of(kind)));
        }
        None
    };
    match (case.get("error"), got) {
        (Some(e), Err(err)) => same_error(e, err),
        // The GPU checks values (indices, targets) on the device: the error comes with the first
        // read of the result, as the README's "Errors" says.
        (Some(e), Ok(t)) => match t.iter().find_map(|t| pollster::block_on(t.to_f64()).err()) {
            Some(err) => same_error(e, err),
            None => Some(format!("no error (got {t:?}), want {}", e["message"])),
        },
        (None, Err(e)) => Some(format!("error {e}")),
        (None, Ok(ts)) => {
            match case["out"].as_array() {
                Some(outs) if outs.len() != ts.len() => Some(format!("{} results, want {}", ts.len(), outs.len())),
                Some(outs) => ts.iter().zip(outs).enumerate().find_map(|(k, (t, out))| {
                    check_tensor(case, t.clone(), out).map(|why| format!("result {k}: {why}"))
                }),
                None => check_tensor(case, ts[0].clone(), &case["out"]),
            }
        }
    }
}

fn check_tensor(case: &Value, t: Tensor, out: &Value) -> Option<String> {
    let want_shape = usizes(&out["shape"]);
    if t.shape() != want_shape.as_slice() {
        return Some(format!("shape {:?}, want {want_shape:?}", t.shape()));
    }
    if t.dtype.name() != out["dtype"].as_str().unwrap() {
        return Some(format!("dtype {}, want {}", t.dtype.name(), out["dtype"]));
    }
    let got = match pollster::block_on(t.to_f64()) {
        Ok(v) => v,
        Err(e) => return Some(format!("read failed: {e}")),
    };
    let want: Vec<f64> = out["data"].as_array().unwrap().iter().map(num).collect();
    let (rtol, atol) = (num(&case["tol"]["rtol"]), num(&case["tol"]["atol"]));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let w = if t.dtype.is_float() { *w as f32 as f64 } else { *w };
        let ok = (g.is_nan() && w.is_nan()) || *g == w || (w.is_finite() && (g - w).abs() <= atol + rtol * w.abs());
        if !ok {
            return Some(format!("element {i}: got {g}, want {w}"));
        }
    }
    None
}

/// The case's gradients (`grad` in the fixture: PyTorch's grads of each float input's base for
/// the upstream gradient `grad.out`), through the autograd tape; `None` when they match or the
/// case has none.
fn check_grad(case: &Value, dev: Device) -> Option<String> {
    let spec = case.get("grad")?;
    let mut leaves = vec![];
    // Tuple results (max/min along a dim): the gradient flows from result 0, the values.
    let forward = kernels::run_with(case, dev, Some(&mut leaves))
        .or_else(|| conv::run_with(case, dev, Some(&mut leaves)))
        .map(|r| r.map(|mut v| v.swap_remove(0)))
        .unwrap_or_else(|| run_case(case, dev, Some(&mut leaves)));
    let out = match forward {
        Ok(t) => t,
        Err(e) => return Some(format!("grad: forward failed: {e}")),
    };
    let up: Vec<f64> = spec["out"].as_array().unwrap().iter().map(num).collect();
    let upstream = Tensor::from_f64(&up, out.shape(), DType::Float32, dev).unwrap();
    if let Err(e) = autograd::backward(&out, Some(upstream), false, false) {
        return Some(format!("grad: backward failed: {e}"));
    }
    let tol = &spec["tol"];
    for (k, (want, leaf)) in spec["inputs"].as_array().unwrap().iter().zip(&leaves).enumerate() {
        let got = leaf.as_ref().and_then(|l| l.grad());
        match (want.as_array(), got) {
            (None, None) => {}
            (None, Some(_)) => return Some(format!("grad of input {k}: got a gradient, want none")),
            (Some(_), None) => return Some(format!("grad of input {k}: none, want one")),
            (Some(w), Some(g)) => {
                let g = pollster::block_on(g.to_f64()).unwrap();
                let w: Vec<f64> = w.iter().map(num).collect();
                let (rtol, atol) = (num(&tol["rtol"]), num(&tol["atol"]));
                for (i, (a, b)) in g.iter().zip(&w).enumerate() {
                    let b = *b as f32 as f64;
                    if !((a.is_nan() && b.is_nan()) || (a - b).abs() <= atol + rtol * b.abs()) {
                        return Some(format!("grad of input {k}: element {i}: got {a}, want {b}"));
                    }
                }
                if g.len() != w.len() {
                    return Some(format!("grad of input {k}: {} elements, want {}", g.len(), w.len()));
                }
            }
        }
    }
    None
}

#[test]
fn pytorch_parity_on_every_native_backend() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parity/fixtures");
    let index: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let mut cases = vec![];
    for f in index["files"].as_array().unwrap() {
        let text = std::fs::read_to_string(dir.join(f.as_str().unwrap())).unwrap();
        cases.extend(serde_json::from_str::<Vec<Value>>(&text).unwrap());
    }
    assert!(cases.len() > 200, "fixtures missing: {} cases", cases.len());
    // Known failures (README: "Known failures"): name -> backends ("cpu"; "wgpu" is this runner's
    // GPU, fused or not) where the case must still fail.
    let known: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("known.json")).unwrap()).unwrap();
    let known: BTreeMap<&str, Vec<&str>> = known["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap(),
                k["backends"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect(),
            )
        })
        .collect();
    // op -> device -> (passed, total)
    let mut table: BTreeMap<String, BTreeMap<&str, (usize, usize)>> = BTreeMap::new();
    let mut failures = vec![];
    // Columns: the CPU, the GPU as configured by default (small tensors run unfused), and the GPU
    // with every elementwise op deferred and fused (min_size 1), so both paths meet PyTorch.
    let mut columns: Vec<(&str, Device, usize)> = vec![("cpu", Device::Cpu, 1024)];
    if devices().contains(&Device::WebGpu) {
        columns.push(("webgpu", Device::WebGpu, 1024));
        columns.push(("webgpu-fused", Device::WebGpu, 1));
    }
    for &(column, dev, min_size) in &columns {
        webtorch::engine::tune(|t| {
            t.fusion_enabled = true;
            t.fusion_min_size = min_size;
        });
        for case in &cases {
            // Ragged nested data is rejected by the TS layer (it builds the flat buffer); the
            // engine only ever sees flat data, so that case is the JS runner's.
            if case["name"] == "tensor/ragged" {
                continue;
            }
            let got = kernels::run(case, dev)
                .or_else(|| conv::run(case, dev))
                .unwrap_or_else(|| run_case(case, dev, None).map(|t| vec![t]));
            let mut res = check(case, got).or_else(|| check_grad(case, dev));
            let backend = if dev == Device::Cpu { "cpu" } else { "wgpu" };
            if known.get(case["name"].as_str().unwrap()).is_some_and(|b| b.contains(&backend)) {
                res = match res {
                    Some(_) => None,
                    None => Some("listed in known.json but passes: remove it there".into()),
                };
            }
            let cell = table.entry(case["op"].as_str().unwrap().to_string()).or_default().entry(column).or_default();
            cell.1 += 1;
            match res {
                None => cell.0 += 1,
                Some(why) => failures.push(format!("{} [{column}]: {why}", case["name"].as_str().unwrap())),
            }
        }
    }
    let mut report = String::from("# Parity with PyTorch (native engine)\n\n| op |");
    for (column, ..) in &columns {
        report += &format!(" {column} |");
    }
    report += "\n|---|";
    report += &"---|".repeat(columns.len());
    report += "\n";
    for (op, cells) in &table {
        report += &format!("| {op} |");
        for (column, ..) in &columns {
            let (p, t) = cells.get(column).copied().unwrap_or_default();
            report += &if p == t { format!(" {p}/{t} |") } else { format!(" **{p}/{t}** |") };
        }
        report += "\n";
    }
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/parity-native.md");
    let _ = std::fs::write(&out, &report);
    println!("{report}");
    assert!(failures.is_empty(), "{} parity failures:\n{}", failures.len(), failures.join("\n"));
}
