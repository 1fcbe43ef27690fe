//! CPU reference index-mapped copies: `Gather` (index_select, gather, take_along_dim) and
//! `Scatter` (scatter, scatter with a value, scatter_add, scatter_reduce), with the GPU kernels' semantics for
//! indices out of range (gathers read 0, scatters skip them).

use super::{copy_elem, elem, for_each_offset, push_elem, put_elem, CpuBackend};
use crate::backend::{Gather, Scatter, ScatterOp, ScatterSrc};
use crate::dtype::DType;
use crate::error::Result;

impl CpuBackend {
    pub(super) fn gather_impl(&self, k: &Gather) {
        let src_dim_stride = k.src.strides[k.dim];
        let mut src_strides = k.src.strides.clone();
        src_strides[k.dim] = 0;
        let dt = k.src.dtype;
        let mut out = Vec::with_capacity(k.shape.iter().product::<usize>() * dt.words());
        self.with_buf(k.index.buf, |ib| {
            self.with_buf(k.src.buf, |sb| {
                let ops = [(k.src.offset, &src_strides[..]), (k.index.offset, &k.index.strides[..])];
                for_each_offset(&k.shape, &ops, |_, o| {
                    let i = ib[o[1]] as i32;
                    // Out-of-range indices read 0, as the GPU kernel does.
                    if i >= 0 && (i as usize) < k.src_dim_size {
                        copy_elem(&mut out, sb, o[0] + i as usize * src_dim_stride, dt)
                    } else {
                        push_elem(&mut out, dt, 0)
                    }
                })
            })
        });
        self.put(k.out, out);
    }

    pub(super) fn scatter_impl(&self, k: &Scatter) -> Result<()> {
        let n: usize = k.shape.iter().product();
        let index: Vec<i32> = self.with_buf(k.index.buf, |b| {
            let mut v = Vec::with_capacity(n);
            for_each_offset(&k.shape, &[(k.index.offset, &k.index.strides)], |_, o| v.push(b[o[0]] as i32));
            v
        });
        let src: Vec<u64> = match &k.src {
            ScatterSrc::Tensor(s) => self.with_buf(s.buf, |b| {
                let mut v = Vec::with_capacity(n);
                for_each_offset(&k.shape, &[(s.offset, &s.strides)], |_, o| v.push(elem(b, o[0], s.dtype)));
                v
            }),
            ScatterSrc::Scalar(x) => vec![crate::dtype::to_elem(*x, k.dtype)?; n],
        };
        let mut base_strides = k.out_strides.clone();
        base_strides[k.dim] = 0;
        let mut st = self.state.borrow_mut();
        let out = st.bufs[k.out as usize].as_mut().expect("live buffer");
        for_each_offset(&k.shape, &[(0, &base_strides)], |i, o| {
            let j = index[i];
            if j < 0 || j as usize >= k.dim_size {
                return; // skipped, as on the GPU
            }
            let dst = o[0] + j as usize * k.out_strides[k.dim];
            let v = if k.dtype == DType::Float64 {
                combine64(k.op, elem(out, dst, k.dtype), src[i])
            } else {
                combine(k.op, k.dtype, out[dst], src[i] as u32) as u64
            };
            put_elem(out, dst, k.dtype, v);
        });
        Ok(())
    }
}

/// `combine` of float64 bits, in f64.
fn combine64(op: ScatterOp, old: u64, v: u64) -> u64 {
    let (a, b) = (f64::from_bits(old), f64::from_bits(v));
    let r = match op {
        ScatterOp::Assign => b,
        ScatterOp::Add => a + b,
        ScatterOp::Prod => a * b,
        _ if a.is_nan() || b.is_nan() => a + b,
        ScatterOp::Max => a.max(b),
        ScatterOp::Min => a.min(b),
    };
    r.to_bits()
}

/// The word `op` makes of the output's word `old` and the source's `v` (the GPU kernel's rules:
/// half types rounded at each step, NaN winning amax/amin, bools as any/all, integers wrapping).
fn combine(op: ScatterOp, dtype: DType, old: u32, v: u32) -> u32 {
    let f = |x: u32| f32::from_bits(x);
    let i = |x: u32| x as i32;
    match (op, dtype) {
        (ScatterOp::Assign, _) => v,
        (_, DType::Float32 | DType::Float16 | DType::BFloat16) => {
            let (a, b) = (f(old), f(v));
            let r = match op {
                ScatterOp::Add => a + b,
                ScatterOp::Prod => a * b,
                _ if a.is_nan() || b.is_nan() => a + b,
                ScatterOp::Max => a.max(b),
                _ => a.min(b),
            };
            dtype.round_f32(r).to_bits()
        }
        (ScatterOp::Add | ScatterOp::Max, DType::Bool) => old | v,
        (_, DType::Bool) => old & v,
        (ScatterOp::Add, _) => old.wrapping_add(v),
        (ScatterOp::Prod, DType::UInt8) => old.wrapping_mul(v) & 255,
        (ScatterOp::Prod, _) => i(old).wrapping_mul(i(v)) as u32,
        (ScatterOp::Max, DType::UInt8) => old.max(v),
        (ScatterOp::Min, DType::UInt8) => old.min(v),
        (ScatterOp::Max, _) => i(old).max(i(v)) as u32,
        (ScatterOp::Min, _) => i(old).min(i(v)) as u32,
    }
}
