//! CPU reference row-wise NN kernels (softmax, log_softmax, layer_norm, rms_norm, causal softmax
//! and the softmax backward rules), computed in f32 (f64 for float64); a row's sums are cascade
//! sums (`reduce.rs`), so a long row's statistics keep PyTorch's accuracy.

use super::reduce::cascade as cascade_sum;
use super::{elem, for_each_offset, put_elem, CpuBackend};
use crate::backend::{RowOp, Rowwise};
use crate::dtype::DType;
use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Sub};

/// The float types the row kernels compute in: f32, and f64 for float64.
pub(super) trait Real:
    Copy
    + Default
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + AddAssign
    + MulAssign
{
    const NEG_INFINITY: Self;
    const ONE: Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sqrt(self) -> Self;
    fn is_nan(self) -> bool;
    fn from_f64(x: f64) -> Self;
    /// To an element's storage bits (`elem`) of this type's dtype.
    fn to_bits64(self) -> u64;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const NEG_INFINITY: Self = <$t>::NEG_INFINITY;
            const ONE: Self = 1.0;
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn to_bits64(self) -> u64 {
                self.to_bits() as u64
            }
        }
    };
}
real!(f32);
real!(f64);

/// Element `at` of a buffer holding `dtype` (float64, or a dtype held as f32 words) as `T`.
fn value<T: Real>(buf: &[u32], at: usize, dtype: DType) -> T {
    let bits = elem(buf, at, dtype);
    T::from_f64(if dtype == DType::Float64 { f64::from_bits(bits) } else { f32::from_bits(bits as u32) as f64 })
}

/// The NaN-propagating max of a row (-inf when empty).
fn row_max<T: Real>(row: &[T]) -> T {
    row.iter().fold(T::NEG_INFINITY, |m, &x| if m.is_nan() || !(x.is_nan() || x > m) { m } else { x })
}

impl CpuBackend {
    pub(super) fn rowwise_impl(&self, k: &Rowwise) {
        if k.input.dtype == DType::Float64 {
            self.rows::<f64>(k)
        } else {
            self.rows::<f32>(k)
        }
    }

    fn rows<T: Real>(&self, k: &Rowwise) {
        let dt = k.input.dtype;
        let shape: Vec<usize> = k.outer.iter().chain(&k.inner).copied().collect();
        let n: usize = k.inner.iter().product();
        let (mut xs, mut outs) = (vec![], vec![]);
        self.with_buf(k.input.buf, |buf| {
            for_each_offset(&shape, &[(k.input.offset, &k.input.strides), (0, &k.out_strides)], |_, o| {
                xs.push(value::<T>(buf, o[0], dt));
                outs.push(o[1]);
            })
        });
        let mut gs = vec![];
        if let Some(g) = &k.grad {
            self.with_buf(g.buf, |buf| {
                for_each_offset(&shape, &[(g.offset, &g.strides)], |_, o| gs.push(value::<T>(buf, o[0], g.dtype)))
            });
        }
        let affine = |o: &Option<crate::backend::Operand>| -> Option<Vec<T>> {
            o.as_ref().map(|w| self.with_buf(w.buf, |b| (0..n).map(|j| value::<T>(b, w.offset + j, w.dtype)).collect()))
        };
        let (w, b) = (affine(&k.weight), affine(&k.bias));
        let eps = T::from_f64(k.eps);
        let mut ys = vec![T::default(); xs.len()];
        for (r, (row, y)) in xs.chunks(n.max(1)).zip(ys.chunks_mut(n.max(1))).enumerate() {
            let g = gs.get(r * n..(r + 1) * n).unwrap_or(&[]);
            match k.op {
                RowOp::CausalSoftmax => {
                    let keep = (r % k.queries.max(1) + 1).min(n);
                    let m = row_max(&row[..keep]);
                    let sum = cascade_sum(row[..keep].iter().map(|&x| (x - m).exp()));
                    for (j, (y, x)) in y.iter_mut().zip(row).enumerate() {
                        *y = if j < keep { (*x - m).exp() / sum } else { T::default() };
                    }
                }
                RowOp::SoftmaxBackward => {
                    let dot = cascade_sum(g.iter().zip(row).map(|(&g, &y)| g * y));
                    for ((o, &yv), &gv) in y.iter_mut().zip(row).zip(g) {
                        *o = yv * (gv - dot);
                    }
                }
                RowOp::LogSoftmaxBackward => {
                    let sum = cascade_sum(g.iter().copied());
                    for ((o, &yv), &gv) in y.iter_mut().zip(row).zip(g) {
                        *o = gv - yv.exp() * sum;
                    }
                }
                RowOp::Softmax | RowOp::LogSoftmax => {
                    let m = row_max(row);
                    let sum = cascade_sum(row.iter().map(|&x| (x - m).exp()));
                    for (y, &x) in y.iter_mut().zip(row) {
                        *y = if k.op == RowOp::Softmax { (x - m).exp() / sum } else { x - m - sum.ln() };
                    }
                }
                RowOp::LayerNorm | RowOp::RmsNorm => {
                    let nf = T::from_f64(n as f64);
                    let (center, ms) = if k.op == RowOp::LayerNorm {
                        let mean = cascade_sum(row.iter().copied()) / nf;
                        (mean, cascade_sum(row.iter().map(|&x| (x - mean) * (x - mean))) / nf)
                    } else {
                        (T::default(), cascade_sum(row.iter().map(|&x| x * x)) / nf)
                    };
                    let r = T::ONE / (ms + eps).sqrt();
                    for (j, (y, &x)) in y.iter_mut().zip(row).enumerate() {
                        let mut v = (x - center) * r;
                        if let Some(w) = &w {
                            v *= w[j];
                        }
                        if let Some(b) = &b {
                            v += b[j];
                        }
                        *y = v;
                    }
                }
            }
        }
        let mut st = self.state.borrow_mut();
        let buf = st.bufs[k.out as usize].as_mut().expect("live buffer");
        for (o, y) in outs.into_iter().zip(ys) {
            // Float64 rows write float64; the others float32 (the caller rounds half types).
            put_elem(buf, o, dt, y.to_bits64());
        }
    }
}
