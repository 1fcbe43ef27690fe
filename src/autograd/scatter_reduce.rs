//! `scatter_reduce`'s gradients, PyTorch's rules: sum and mean pass the upstream on (divided by
//! each place's count for mean); amax/amin share it evenly among the values equal to the result
//! (self's counted even without `include_self`);
//! prod multiplies it by the product of the others (computed without dividing by a zero). Without
//! `include_self`, self's values at scattered-to places took no part and get none.

use super::kernels::{gather, node};
use super::needs_grad;
use super::ops as o;
use crate::bail;
use crate::dtype::ScalarKind;
use crate::error::Result;
use crate::ops::Op;
use crate::shape::fmt_shape;
use crate::tensor::{ScatterReduce, Tensor, TensorOrScalar};

/// `where(cond, 1, t)`: `t` with ones where `cond` holds.
fn ones_where(cond: &Tensor, t: &Tensor) -> Result<Tensor> {
    Tensor::where_(cond, TensorOrScalar::Scalar(1.0, ScalarKind::Int), TensorOrScalar::Tensor(t))
}

pub fn scatter_reduce(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
    reduce: ScatterReduce,
    include_self: bool,
) -> Result<Tensor> {
    let mut y = x.scatter_reduce(dim, index, src, reduce, include_self)?;
    if !needs_grad(&[x, src]) {
        return Ok(y);
    }
    let (xs, ss, idx, ys) = (x.clone(), src.clone(), index.clone(), y.detach());
    node("ScatterReduceBackward0", &[x, src], &[x, src], &mut y, move |g| {
        if ss.shape() != idx.shape() {
            // PyTorch's autograd refuses the same (its source gradient has the index's shape).
            bail!(
                Torch,
                "Function ScatterReduceBackward0 returned an invalid gradient at index 1 - got {} but expected shape compatible with {}",
                fmt_shape(idx.shape()),
                fmt_shape(ss.shape())
            );
        }
        let (gx, gs) = match reduce {
            ScatterReduce::Sum => (g.clone(), gather(g, dim, &idx)?),
            ScatterReduce::Mean => {
                let n = xs.scatter_count(dim, &idx, include_self)?.binary_scalar(Op::Maximum, 1.0, false)?;
                let gn = o::div(g, &n.to_dtype(g.dtype)?)?;
                (gn.clone(), gather(&gn, dim, &idx)?)
            }
            ScatterReduce::Amax | ScatterReduce::Amin => {
                // Self's values equal to the result count among the sharers even without
                // `include_self` (PyTorch's rule; their own share is dropped below).
                let at_x = xs.binary(Op::Eq, &ys)?.to_dtype(g.dtype)?;
                let at_s = ss.binary(Op::Eq, &ys.gather(dim, &idx)?)?.to_dtype(g.dtype)?;
                let n = at_x.scatter_add(dim, &idx, &at_s)?;
                let gn = o::div(g, &n)?;
                (o::mul(&gn, &at_x)?, o::mul(&gather(&gn, dim, &idx)?, &at_s)?)
            }
            ScatterReduce::Prod => {
                // Self's zeros as ones: the product of everything else at that place.
                let x_zero = xs.binary_scalar(Op::Eq, 0.0, false)?;
                let masked_x = ones_where(&x_zero, &xs)?;
                let others = masked_x.scatter_reduce(dim, &idx, &ss, reduce, include_self)?;
                let gx = o::div(&o::mul(g, &others)?, &masked_x)?;
                // A source zero alone at its place gets the product of the others; with two
                // zeros there, every gradient is 0 (y is 0 and so is y / src elsewhere).
                let s_zero = ss.binary_scalar(Op::Eq, 0.0, false)?;
                let zeros = Tensor::full(xs.shape(), 0.0, xs.dtype, xs.device())?
                    .scatter_add(dim, &idx, &s_zero.to_dtype(xs.dtype)?)?
                    .gather(dim, &idx)?;
                let single = s_zero.binary(Op::LogicalAnd, &zeros.binary_scalar(Op::Eq, 1.0, false)?)?;
                let others_s = xs.scatter_reduce(dim, &idx, &ones_where(&single, &ss)?, reduce, include_self)?;
                let at_single = gather(&o::mul(g, &others_s)?, dim, &idx)?;
                let plain = o::div(&gather(&o::mul(g, &ys)?, dim, &idx)?, &ones_where(&s_zero, &ss)?)?;
                let gs = super::kernels::where_(
                    &single,
                    TensorOrScalar::Tensor(&at_single),
                    TensorOrScalar::Tensor(&plain),
                )?;
                (gx, gs)
            }
        };
        let gx = if include_self { gx } else { super::kernels::scatter_value(&gx, dim, &idx, 0.0)? };
        Ok(vec![Some(gx), Some(gs)])
    });
    Ok(y)
}
