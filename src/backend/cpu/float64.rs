//! float64 on the CPU backend, a CPU-only dtype: its storage (two words an element, low first;
//! every other dtype one word) and its value paths — loading a float64 as each compute type,
//! storing an f64 as each dtype, and the op table's f64 kernels.

use super::V;
use crate::dtype::{Compute, DType};
use crate::ops::table::CpuFn;

/// The storage bits of element `at` of a word buffer holding `dtype` (a float64 is two words,
/// low first; every other dtype one word).
pub(super) fn elem(buf: &[u32], at: usize, dtype: DType) -> u64 {
    if dtype == DType::Float64 {
        crate::dtype::f64_at(buf, at).to_bits()
    } else {
        buf[at] as u64
    }
}

/// Writes element `at` of a word buffer holding `dtype` (`elem`'s inverse).
pub(super) fn put_elem(buf: &mut [u32], at: usize, dtype: DType, bits: u64) {
    if dtype == DType::Float64 {
        crate::dtype::set_f64(buf, at, f64::from_bits(bits));
    } else {
        buf[at] = bits as u32;
    }
}

/// Appends an element's storage words (`elem`'s layout) to `out`.
pub(super) fn push_elem(out: &mut Vec<u32>, dtype: DType, bits: u64) {
    out.push(bits as u32);
    if dtype == DType::Float64 {
        out.push((bits >> 32) as u32);
    }
}

/// Appends the words of element `at` of `buf` (as `elem` reads it) to `out`.
pub(super) fn copy_elem(out: &mut Vec<u32>, buf: &[u32], at: usize, dtype: DType) {
    push_elem(out, dtype, elem(buf, at, dtype));
}

/// A float64 value as the compute type `c`.
pub(super) fn load(x: f64, c: Compute) -> V {
    match c {
        Compute::F64 => V::D(x),
        Compute::F32 => V::F(x as f32),
        _ => V::I(x as i32),
    }
}

/// `store` where the value is an f64 or the dtype float64: its storage bits.
pub(super) fn store(v: V, dtype: DType) -> u64 {
    match (v, dtype) {
        (V::D(x), DType::Float64) => x.to_bits(),
        (V::F(x), DType::Float64) => (x as f64).to_bits(),
        (V::I(x), DType::Float64) => (x as f64).to_bits(),
        (V::D(x), DType::Float32 | DType::Float16 | DType::BFloat16) => dtype.round_f32(x as f32).to_bits() as u64,
        (V::D(x), DType::Int32 | DType::Int64) => x as i32 as u32 as u64,
        (V::D(x), DType::UInt8) => ((x as i32 as u32) & 255) as u64,
        (V::D(x), DType::Bool) => (x != 0.0) as u64,
        (v, dtype) => unreachable!("{v:?} as {dtype:?} is not a float64 store"),
    }
}

/// A compute value as f64 (exact from f32 and i32).
pub(super) fn d(v: V) -> f64 {
    match v {
        V::F(x) => x as f64,
        V::I(x) => x as f64,
        V::D(x) => x,
    }
}

/// The op table row `cpu` at float64 (`None`: the row has no float64 kernel, which
/// `OpInfo::supports` refuses before dispatch).
pub(super) fn apply(cpu: CpuFn, x: f64, b: V) -> Option<V> {
    Some(match cpu {
        CpuFn::Unary(.., ff) => V::D(ff?(x)),
        CpuFn::Binary(.., ff) => V::D(ff?(x, d(b))),
        CpuFn::Test(.., ff) => V::I(ff(x) as i32),
        CpuFn::Compare(.., ff) => V::I(ff(x, d(b)) as i32),
    })
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::backend::{Node, ReduceOp, RowOp, Tri};

    fn words(xs: &[f64]) -> Vec<u32> {
        let mut w = vec![0; 2 * xs.len()];
        for (i, &x) in xs.iter().enumerate() {
            crate::dtype::set_f64(&mut w, i, x);
        }
        w
    }

    fn read(be: &CpuBackend, buf: BufId, n: usize) -> Vec<f64> {
        let mut fut = be.read(buf, 0, 2 * n);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let std::task::Poll::Ready(w) = fut.as_mut().poll(&mut cx) else { panic!("cpu reads are ready") };
        let w = w.unwrap();
        (0..w.len() / 2).map(|i| crate::dtype::f64_at(&w, i)).collect()
    }

    fn operand(buf: BufId, dtype: DType, strides: &[usize]) -> Operand {
        Operand { buf, dtype, offset: 0, strides: strides.to_vec() }
    }

    #[test]
    fn float64_elementwise_is_exact_f64_arithmetic() {
        let be = CpuBackend::new();
        let xs = [1.0, 0.1, -3.25, 1e300];
        let a = be.upload(&words(&xs)).unwrap();
        let out = be.alloc(8 * 4).unwrap();
        // exp(a + 1e-12) through a strided view (every other element from the second).
        let nodes = vec![
            Node {
                func: Func::Op(Op::Add),
                compute: Compute::F64,
                out_dtype: DType::Float64,
                args: vec![Arg::Leaf(0), Arg::Scalar(1e-12)],
            },
            Node {
                func: Func::Op(Op::Exp),
                compute: Compute::F64,
                out_dtype: DType::Float64,
                args: vec![Arg::Node(0)],
            },
        ];
        let leaf = Operand { offset: 1, ..operand(a, DType::Float64, &[2]) };
        be.run_elementwise(&Elementwise { nodes, leaves: vec![leaf], shape: vec![2], out, out_view: None }).unwrap();
        let want: Vec<f64> = [xs[1], xs[3]].iter().map(|x| (x + 1e-12).exp()).collect();
        assert_eq!(read(&be, out, 2), want);
    }

    #[test]
    fn float64_casts_both_ways() {
        let be = CpuBackend::new();
        let f32s = be.upload(&[0.1f32.to_bits(), 16777216f32.to_bits()]).unwrap();
        let out = be.alloc(16).unwrap();
        let cast =
            |compute: Compute, to: DType| Node { func: Func::Cast, compute, out_dtype: to, args: vec![Arg::Leaf(0)] };
        let _ = from_f32_widens(&be, f32s, out, cast(Compute::F32, DType::Float64));
        assert_eq!(read(&be, out, 2), vec![0.1f32 as f64, 16777216.0]);
        // Narrowing rounds to nearest: 1 + 1e-12 is 1 in float32.
        let d = be.upload(&words(&[1.0 + 1e-12, -2.9])).unwrap();
        let f = be.alloc(8).unwrap();
        let k = Elementwise {
            nodes: vec![cast(Compute::F64, DType::Float32)],
            leaves: vec![operand(d, DType::Float64, &[1])],
            shape: vec![2],
            out: f,
            out_view: None,
        };
        be.run_elementwise(&k).unwrap();
        let i = be.alloc(8).unwrap();
        be.run_elementwise(&Elementwise { nodes: vec![cast(Compute::F64, DType::Int32)], out: i, ..k }).unwrap();
        let (fw, iw) = (be.with_buf(f, |b| b[..2].to_vec()), be.with_buf(i, |b| b[..2].to_vec()));
        assert_eq!(fw, vec![1f32.to_bits(), (-2.9f32).to_bits()]);
        assert_eq!(iw, vec![1, -2i32 as u32]);
    }

    fn from_f32_widens(be: &CpuBackend, src: BufId, out: BufId, node: Node) -> Result<()> {
        be.run_elementwise(&Elementwise {
            nodes: vec![node],
            leaves: vec![operand(src, DType::Float32, &[1])],
            shape: vec![2],
            out,
            out_view: None,
        })
    }

    #[test]
    fn float64_reduce_matmul_and_rows_compute_in_f64() {
        let be = CpuBackend::new();
        // Rows of [1e8, 1e-8, -1e8, 0.1]: float32 would lose the small terms.
        let xs = [1e8, 1e-8, -1e8, 0.1, 1.0 + 1e-12, 2.0, 3.0, 4.0];
        let a = be.upload(&words(&xs)).unwrap();
        let out = be.alloc(16).unwrap();
        let reduce = |op| Reduce {
            op,
            compute: Compute::F64,
            input: operand(a, DType::Float64, &[4, 1]),
            outer: vec![2],
            inner: vec![4],
            out,
            out_dtype: DType::Float64,
            param: 0.0,
            prologue: None,
        };
        be.run_reduce(&reduce(ReduceOp::Sum)).unwrap();
        assert_eq!(read(&be, out, 2), vec![1e8 + 1e-8 - 1e8 + 0.1, 1.0 + 1e-12 + 2.0 + 3.0 + 4.0]);
        be.run_reduce(&reduce(ReduceOp::Max)).unwrap();
        assert_eq!(read(&be, out, 2), vec![1e8, 4.0]);
        // [2, 4] @ [4, 1] of ones: the row sums again, through the product.
        let ones = be.upload(&words(&[1.0; 4])).unwrap();
        let mm = Matmul {
            a: operand(a, DType::Float64, &[4, 1]),
            b: operand(ones, DType::Float64, &[1, 1]),
            batch: vec![],
            m: 2,
            n: 1,
            k: 4,
            out,
            dtype: DType::Float64,
            epilogue: None,
            tri: Tri::None,
        };
        be.run_matmul(&mm).unwrap();
        assert_eq!(read(&be, out, 2), vec![1e8 + 1e-8 - 1e8 + 0.1, 1.0 + 1e-12 + 2.0 + 3.0 + 4.0]);
        // Softmax of the second row, in f64.
        let sm = be.alloc(32).unwrap();
        let row = &xs[4..];
        be.run_rowwise(&Rowwise {
            op: RowOp::Softmax,
            input: Operand { offset: 4, ..operand(a, DType::Float64, &[4, 1]) },
            weight: None,
            bias: None,
            outer: vec![1],
            inner: vec![4],
            out: sm,
            out_strides: vec![4, 1],
            eps: 0.0,
            grad: None,
            queries: 0,
        })
        .unwrap();
        let m = 4.0;
        let sum: f64 = row.iter().map(|x| (x - m).exp()).sum();
        let want: Vec<f64> = row.iter().map(|x| (x - m).exp() / sum).collect();
        for (g, w) in read(&be, sm, 4).iter().zip(&want) {
            assert!((g - w).abs() <= 1e-16, "{g} vs {w}");
        }
    }
}
