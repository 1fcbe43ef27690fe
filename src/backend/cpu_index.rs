//! CPU reference index-mapped copies: `Gather` (index_select, gather, take_along_dim) and
//! `Scatter` (scatter, scatter with a value, scatter_add), with the GPU kernels' semantics for
//! indices out of range (gathers read 0, scatters skip them).

use super::{for_each_offset, CpuBackend};
use crate::backend::{Gather, Scatter, ScatterSrc};
use crate::dtype::DType;
use crate::error::Result;

impl CpuBackend {
    pub(super) fn gather_impl(&self, k: &Gather) {
        let src_dim_stride = k.src.strides[k.dim];
        let mut src_strides = k.src.strides.clone();
        src_strides[k.dim] = 0;
        let mut out = Vec::with_capacity(k.shape.iter().product());
        self.with_buf(k.index.buf, |ib| {
            self.with_buf(k.src.buf, |sb| {
                let ops = [(k.src.offset, &src_strides[..]), (k.index.offset, &k.index.strides[..])];
                for_each_offset(&k.shape, &ops, |_, o| {
                    let i = ib[o[1]] as i32;
                    // Out-of-range indices read 0, as the GPU kernel does.
                    out.push(if i >= 0 && (i as usize) < k.src_dim_size {
                        sb[o[0] + i as usize * src_dim_stride]
                    } else {
                        0
                    });
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
        let src: Vec<u32> = match &k.src {
            ScatterSrc::Tensor(s) => self.with_buf(s.buf, |b| {
                let mut v = Vec::with_capacity(n);
                for_each_offset(&k.shape, &[(s.offset, &s.strides)], |_, o| v.push(b[o[0]]));
                v
            }),
            ScatterSrc::Scalar(x) => vec![crate::tensor::to_word(*x, k.dtype)?; n],
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
            out[dst] = match (k.add, k.dtype) {
                (false, _) => src[i],
                (true, DType::Float32 | DType::Float16 | DType::BFloat16) => {
                    k.dtype.round_f32(f32::from_bits(out[dst]) + f32::from_bits(src[i])).to_bits()
                }
                (true, DType::Bool) => out[dst] | src[i],
                (true, _) => out[dst].wrapping_add(src[i]),
            };
        });
        Ok(())
    }
}
