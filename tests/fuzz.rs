#![cfg(not(target_arch = "wasm32"))]
//! Randomized differential testing: seeded random programs of views (transpose, permute, slice,
//! narrow, select, expand, reshape), broadcasting elementwise chains, reductions, matmuls and
//! indexing (index_select, gather and scatter_add with in-range indices), cumsum and stable sorts
//! (of data with many ties) run on the WebGPU backend (fused, unfused, and with tiny ops in
//! batched launches) and on the CPU backend; results must agree and no op may panic — bad combinations must come back as errors, the same on every backend.
//! `WEBTORCH_FUZZ_CASES=n` runs more programs (default 150).

mod common;

use common::{assert_close, devices};
use webtorch::{DType, Device, Op, Tensor};

/// A small deterministic generator (SplitMix64), so a failing program can be replayed by seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

// NOTE: well-conditioned ops only: sin(x) of a large x computed two ways differs by the input's
// rounding times cos(x), which says nothing about the kernels (the parity suite covers sin).
const UNARY: [Op; 7] = [Op::Neg, Op::Exp, Op::Relu, Op::Abs, Op::Tanh, Op::Sigmoid, Op::Square];
const BINARY: [Op; 6] = [Op::Add, Op::Sub, Op::Mul, Op::Maximum, Op::Minimum, Op::Div];

/// One step of a program, replayable on any device.
#[derive(Clone, Debug)]
enum Step {
    Unary(Op),
    Binary(Op, Vec<usize>, u64),
    Scalar(Op, f64),
    Transpose(i64, i64),
    Permute(Vec<i64>),
    Slice(i64, Option<i64>, Option<i64>, i64),
    Narrow(i64, i64, i64),
    Select(i64, i64),
    Expand(Vec<i64>),
    Reshape(Vec<i64>),
    Sum(Vec<i64>, bool),
    Amax(Vec<i64>, bool),
    Matmul(usize, u64),
    Softmax(i64),
    IndexSelect(i64, Vec<i64>),
    Gather(i64, Vec<usize>, u64),
    ScatterAdd(i64, Vec<usize>, u64),
    Cumsum(i64),
    /// The sorted values (a gather through the stable sort's permutation).
    Sort(i64, bool),
}

fn gen_program(rng: &mut Rng, shape: &[usize]) -> Vec<Step> {
    let mut shape = shape.to_vec();
    let mut steps = vec![];
    for _ in 0..rng.range(2, 7) {
        let n = shape.len() as i64;
        let step = match rng.below(18) {
            0 | 1 => Step::Unary(UNARY[rng.below(UNARY.len())]),
            2 | 3 => {
                // A broadcast-compatible right operand: a suffix of the shape with some 1s.
                let k = rng.below(shape.len() + 1);
                let other: Vec<usize> =
                    shape[shape.len() - k..].iter().map(|&s| if rng.below(3) == 0 { 1 } else { s }).collect();
                Step::Binary(BINARY[rng.below(BINARY.len())], other, rng.next())
            }
            4 => Step::Scalar(BINARY[rng.below(BINARY.len())], rng.range(-3, 3) as f64 + 0.5),
            5 if n >= 2 => Step::Transpose(rng.range(-n, n - 1), rng.range(-n, n - 1)),
            6 if n >= 1 => {
                let mut p: Vec<i64> = (0..n).collect();
                for i in (1..p.len()).rev() {
                    p.swap(i, rng.below(i + 1));
                }
                Step::Permute(p)
            }
            7 if n >= 1 => {
                let d = rng.range(-n, n - 1);
                let size = shape[d.rem_euclid(n) as usize] as i64;
                Step::Slice(d, Some(rng.range(-size - 1, size)), Some(rng.range(-size, size + 1)), rng.range(1, 3))
            }
            8 if n >= 1 => {
                let d = rng.range(0, n - 1);
                let size = shape[d as usize] as i64;
                let start = rng.range(0, size);
                Step::Narrow(d, start, rng.range(0, size - start))
            }
            9 if n >= 2 => {
                let d = rng.range(0, n - 1);
                Step::Select(d, rng.range(-(shape[d as usize] as i64), shape[d as usize] as i64 - 1).max(-1))
            }
            10 => {
                let lead = rng.range(1, 3);
                let mut sizes = vec![lead];
                sizes.extend(shape.iter().map(|&s| if s == 1 { rng.range(1, 3) } else { -1 }));
                Step::Expand(sizes)
            }
            11 if n >= 1 => {
                let dims: Vec<i64> = (0..n).filter(|_| rng.below(2) == 0).collect();
                if rng.below(2) == 0 {
                    Step::Sum(dims, rng.below(2) == 0)
                } else {
                    Step::Amax(dims, rng.below(2) == 0)
                }
            }
            12 if n >= 1 => {
                if rng.below(2) == 0 {
                    Step::Matmul(rng.range(1, 5) as usize, rng.next())
                } else {
                    Step::Softmax(rng.range(-n, n - 1))
                }
            }
            13 if n >= 1 => {
                let d = rng.range(-n, n - 1);
                let size = shape[d.rem_euclid(n) as usize] as i64;
                let k = rng.range(0, 4) as usize;
                Step::IndexSelect(d, (0..k).map(|_| rng.range(0, size - 1)).collect())
            }
            14 if n >= 1 => {
                // An index no larger than the input outside `dim` (PyTorch's rule), values in range.
                let d = rng.below(n as usize);
                let ishape: Vec<usize> = shape
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| if i == d { rng.below(4) } else { rng.below(s + 1) })
                    .collect();
                Step::Gather(d as i64, ishape, rng.next())
            }
            15 if n >= 1 && shape.iter().all(|&s| s > 0) => {
                // Index (and source) no larger than self outside `dim`; repeated targets add up.
                let d = rng.below(n as usize);
                let ishape: Vec<usize> = shape.iter().map(|&s| rng.below(s) + 1).collect();
                Step::ScatterAdd(d as i64, ishape, rng.next())
            }
            16 if n >= 1 => Step::Cumsum(rng.range(-n, n - 1)),
            17 if n >= 1 => Step::Sort(rng.range(-n, n - 1), rng.below(2) == 0),
            _ => Step::Reshape(vec![-1]),
        };
        // Track the shape with the CPU engine itself (cheap, and the same rules).
        let probe = Tensor::full(&shape, 1.0, DType::Float32, Device::Cpu).unwrap();
        if let Ok(t) = apply(&probe, &step, Device::Cpu) {
            shape = t.shape().to_vec();
            steps.push(step);
        }
        if shape.iter().product::<usize>() > 4096 || shape.len() > 6 {
            break;
        }
    }
    steps
}

fn data(seed: u64, shape: &[usize], dev: Device) -> Tensor {
    let mut r = Rng(seed);
    let v: Vec<f64> = (0..shape.iter().product::<usize>()).map(|_| (r.range(-40, 40) as f64) / 16.0).collect();
    Tensor::from_f64(&v, shape, DType::Float32, dev).unwrap()
}

fn apply(t: &Tensor, step: &Step, dev: Device) -> webtorch::Result<Tensor> {
    match step {
        Step::Unary(op) => t.unary(*op),
        Step::Binary(op, shape, seed) => t.binary(*op, &data(*seed, shape, dev)),
        Step::Scalar(op, v) => t.binary_scalar(*op, *v, false),
        Step::Transpose(a, b) => t.transpose(*a, *b),
        Step::Permute(p) => t.permute(p),
        Step::Slice(d, s, e, st) => t.slice(*d, *s, *e, *st),
        Step::Narrow(d, s, l) => t.narrow(*d, *s, *l),
        Step::Select(d, i) => t.select(*d, *i),
        Step::Expand(s) => t.expand(s),
        Step::Reshape(s) => t.reshape(s),
        Step::Sum(d, k) => t.sum(d, *k),
        Step::Amax(d, k) => {
            if t.numel() == 0 {
                t.sum(d, *k)
            } else {
                t.amax(d, *k)
            }
        }
        Step::Matmul(n, seed) => {
            let k = *t.shape().last().unwrap_or(&1);
            if t.ndim() == 0 {
                return t.binary_scalar(Op::Mul, 2.0, false);
            }
            t.matmul(&data(*seed, &[k, *n], dev))
        }
        Step::Softmax(d) => t.softmax(*d),
        Step::IndexSelect(d, idx) => {
            let v: Vec<f64> = idx.iter().map(|&i| i as f64).collect();
            t.index_select(*d, &Tensor::from_f64(&v, &[idx.len()], DType::Int64, dev)?)
        }
        Step::Gather(d, ishape, seed) => {
            let size = t.shape().get(*d as usize).copied().unwrap_or(1).max(1);
            let mut r = Rng(*seed);
            let v: Vec<f64> = (0..ishape.iter().product::<usize>()).map(|_| r.below(size) as f64).collect();
            t.gather(*d, &Tensor::from_f64(&v, ishape, DType::Int64, dev)?)
        }
        Step::ScatterAdd(d, ishape, seed) => {
            let size = t.shape().get(*d as usize).copied().unwrap_or(1).max(1);
            let mut r = Rng(*seed);
            let v: Vec<f64> = (0..ishape.iter().product::<usize>()).map(|_| r.below(size) as f64).collect();
            let index = Tensor::from_f64(&v, ishape, DType::Int64, dev)?;
            t.scatter_add(*d, &index, &data(seed ^ 1, ishape, dev))
        }
        Step::Cumsum(d) => t.cumsum(*d, None),
        Step::Sort(d, descending) => t.gather(*d, &t.sort_indices(*d, *descending)?),
    }
}

fn run(program: &[Step], shape: &[usize], seed: u64, dev: Device) -> webtorch::Result<(Vec<usize>, Vec<f64>)> {
    let mut t = data(seed, shape, dev);
    for step in program {
        t = apply(&t, step, dev)?;
    }
    let v = pollster::block_on(t.to_f64())?;
    Ok((t.shape().to_vec(), v))
}

#[test]
fn random_programs_agree_across_backends() {
    let has_gpu = devices().contains(&Device::WebGpu);
    let cases: u64 = std::env::var("WEBTORCH_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(150);
    let mut checked = 0;
    let mut batched_ops = 0;
    for case in 0..cases {
        let mut rng = Rng(0xC0FFEE ^ case);
        let rank = rng.below(4) + 1;
        let shape: Vec<usize> = (0..rank).map(|_| rng.below(6) + 1).collect();
        let program = gen_program(&mut rng, &shape);
        let seed = rng.next();
        let cpu = run(&program, &shape, seed, Device::Cpu);
        if !has_gpu {
            continue;
        }
        // Unfused, fused, and unfused with tiny ops in batched launches (forced: lavapipe
        // emulates a GPU on the CPU, where they are off by default).
        for (min_size, batched) in [(1024, false), (1, false), (1024, true)] {
            webtorch::engine::tune(|t| t.fusion_min_size = min_size);
            webtorch::engine::tune(|t| t.batched_launches = Some(batched));
            let b0 = webtorch::engine::backend(Device::WebGpu).unwrap().stats().batched_ops;
            let gpu = run(&program, &shape, seed, Device::WebGpu);
            batched_ops += webtorch::engine::backend(Device::WebGpu).unwrap().stats().batched_ops - b0;
            webtorch::engine::tune(|t| t.batched_launches = None);
            let what = format!("case {case} (min_size {min_size}, batched {batched}): {shape:?} {program:?}");
            match (&cpu, &gpu) {
                (Ok((cs, cv)), Ok((gs, gv))) => {
                    assert_eq!(cs, gs, "{what}");
                    assert_close(gv, cv, 1e-4, 1e-4, &what);
                    checked += 1;
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{what}"),
                _ => panic!("{what}: cpu {:?} vs gpu {:?}", cpu.as_ref().map(|r| &r.0), gpu.as_ref().map(|r| &r.0)),
            }
        }
    }
    webtorch::engine::tune(|t| t.fusion_min_size = 1024);
    if has_gpu {
        assert!(checked >= cases as usize, "only {checked} programs compared");
        // The batched configuration did batch (89 ops in the default 150 programs: views,
        // reductions and indexing run kernels of their own, and a batch of one op runs that op's
        // kernel, so only runs of two or more tiny ops count).
        assert!(batched_ops >= cases / 2, "{batched_ops} ops batched in {cases} programs");
    }
}
