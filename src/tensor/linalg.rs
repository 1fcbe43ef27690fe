//! `torch.matmul` and its shape rules (dot, mv, mm, batched with broadcast batch dims).

use super::elementwise::check_same_device;
use super::{MatmulRoot, Tensor};
use crate::backend::{Kernel, Matmul, Tri};
use crate::bail;
use crate::error::Result;
use crate::shape::broadcast_shapes;

/// The C type names PyTorch prints in matmul dtype errors.
fn c_name(d: crate::dtype::DType) -> &'static str {
    use crate::dtype::DType::*;
    match d {
        Float32 => "float",
        Int32 => "int",
        Int64 => "long int",
        UInt8 => "unsigned char",
        Bool => "bool",
        Float16 => "c10::Half",
        BFloat16 => "c10::BFloat16",
        Float64 => "double",
    }
}

impl Tensor {
    /// `torch.matmul(self, other)` with PyTorch's rules for 1-D operands and batch broadcasting.
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        self.matmul_with(other, false, Tri::None)
    }

    /// `matmul` whose result may stay pending (on a fusing device, for float32 matrices): the
    /// elementwise ops that follow become the matmul's epilogue, one dispatch in all. Autograd
    /// uses it where the product needs no gradient: the recorded backward would read the
    /// intermediates, and recomputing a pending product for them costs a second matmul.
    pub fn matmul_fusable(&self, other: &Tensor) -> Result<Tensor> {
        self.matmul_with(other, true, Tri::None)
    }

    /// `matmul` of causal attention's triangular operands (`Tri`): the kernel may skip what the
    /// structure makes zero or unneeded. Outputs under `Tri::LowerOut` above the diagonal are 0
    /// or the product, whichever the kernel wrote.
    pub fn matmul_tri(&self, other: &Tensor, tri: Tri) -> Result<Tensor> {
        self.matmul_with(other, false, tri)
    }

    /// `matmul_tri` whose result may stay pending, as `matmul_fusable`: the elementwise ops that
    /// follow become its epilogue. Under `Tri::LowerOut` the entries above the diagonal are then
    /// 0, the product or the epilogue of either: the expression must make them what it needs
    /// (attention's recomputed probabilities add a causal mask).
    pub fn matmul_tri_fusable(&self, other: &Tensor, tri: Tri) -> Result<Tensor> {
        self.matmul_with(other, true, tri)
    }

    fn matmul_with(&self, other: &Tensor, fuse: bool, tri: Tri) -> Result<Tensor> {
        check_same_device(self, other)?;
        let (da, db) = (self.ndim(), other.ndim());
        if da == 0 || db == 0 {
            bail!(Shape, "both arguments to matmul need to be at least 1D, but they are {da}D and {db}D");
        }
        if self.dtype != other.dtype {
            bail!(
                DType,
                "expected m1 and m2 to have the same dtype, but got: {} != {}",
                c_name(self.dtype),
                c_name(other.dtype)
            );
        }
        if self.dtype == crate::dtype::DType::Bool {
            bail!(DType, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
        }
        let (sa, sb) = (self.shape(), other.shape());
        // Shape errors in PyTorch's words, per case.
        let k = sa[da - 1];
        let kb = if db == 1 { sb[0] } else { sb[db - 2] };
        if k != kb {
            match (da, db) {
                (1, 1) => bail!(
                    Shape,
                    "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
                    sa[0], sb[0], sa[0], sb[0]
                ),
                (2, 1) => bail!(Shape, "size mismatch, got input ({}), mat ({}x{}), vec ({})", sa[0], sa[0], sa[1], sb[0]),
                (_, 1) | (_, 2) => {
                    let rows: usize = sa[..da - 1].iter().product();
                    bail!(Shape, "mm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", rows, k, sb[0], if db == 2 { sb[1] } else { 1 })
                }
                (1, _) => bail!(Shape, "mm: mat1 and mat2 shapes cannot be multiplied (1x{} and {}x{})", k, kb, sb[db - 1]),
                _ => {
                    let batch: usize = broadcast_shapes(&sa[..da - 2], &sb[..db - 2])?.iter().product();
                    bail!(
                        Shape,
                        "Expected size for first two dimensions of batch2 tensor to be: [{}, {}] but got: [{}, {}].",
                        batch, k, batch, kb
                    )
                }
            }
        }
        // Promote 1-D operands to matrices, as PyTorch does, and drop the added dim at the end.
        let a = if da == 1 { self.unsqueeze(0)? } else { self.clone() };
        let b = if db == 1 { other.unsqueeze(1)? } else { other.clone() };
        let (ra, rb) = (a.ndim(), b.ndim());
        let batch = broadcast_shapes(&a.shape()[..ra - 2], &b.shape()[..rb - 2])?;
        let (m, n) = (a.shape()[ra - 2], b.shape()[rb - 1]);
        let mut out_shape = batch.clone();
        out_shape.extend([m, n]);
        let numel: usize = out_shape.iter().product();
        let pending = fuse
            && da >= 2
            && db >= 2
            && self.dtype == crate::dtype::DType::Float32
            && numel > 0
            && super::fusion::fuses_matmul(self.backend(), numel);
        let out = if numel == 0 {
            Tensor::empty_on(self.backend(), &out_shape, self.dtype)?
        } else {
            let mut sa_full = batch.clone();
            sa_full.extend([m, k]);
            let mut sb_full = batch.clone();
            sb_full.extend([k, n]);
            let (mut oa, mut ob) = (a.operand(&sa_full)?, b.operand(&sb_full)?);
            // `operand` broadcast the trailing dims too; restore their real strides.
            oa.strides.truncate(batch.len());
            oa.strides.extend(&a.layout.strides[ra - 2..]);
            ob.strides.truncate(batch.len());
            ob.strides.extend(&b.layout.strides[rb - 2..]);
            if pending {
                let root = MatmulRoot { a, b, a_strides: oa.strides, b_strides: ob.strides, batch, m, n, k, tri };
                return Ok(Tensor::pending(self.backend(), super::fusion::matmul_pending(root), self.dtype));
            }
            let out = Tensor::empty_on(self.backend(), &out_shape, self.dtype)?;
            let mm = Matmul { a: oa, b: ob, batch, m, n, k, out: out.buf()?, dtype: self.dtype, epilogue: None, tri };
            self.backend().launch(Kernel::Matmul(&mm))?;
            out
        };
        let mut out = out;
        if db == 1 {
            out = out.squeeze_dim(-1)?;
        }
        if da == 1 {
            out = out.squeeze_dim(if db == 1 { -1 } else { -2 })?;
        }
        Ok(out)
    }
}

impl Tensor {
    /// `softmax(self kᵀ · scale + mask) v` (queries `self (…, L, E)`, keys `(…, S, E)`, values
    /// `(…, S, Ev)`, the same batch dims; `causal`: query `i` sees keys `j ≤ i`; `mask` a float
    /// tensor broadcasting to `(…, L, S)`, -inf where not attended) by the backend's one-pass
    /// kernel (`ops/attention/`), with each query row's log-sum-exp of its scaled scores
    /// `(…, L)` (what a backward needs to recompute the probabilities), or `None` where the
    /// backend has no kernel for these shapes (then the caller composes products and a softmax).
    pub fn attention_fused(
        &self,
        k: &Tensor,
        v: &Tensor,
        scale: f64,
        causal: bool,
        mask: Option<&Tensor>,
    ) -> Result<Option<(Tensor, Tensor)>> {
        check_same_device(self, k)?;
        check_same_device(self, v)?;
        if let Some(m) = mask {
            check_same_device(self, m)?;
        }
        let Some((shape, scores)) = self.attention_shape(k, v, mask) else {
            return Ok(None);
        };
        if !crate::ops::attention::forward::supports(&shape, &self.backend().capabilities()) {
            return Ok(None);
        }
        let (n, qs, ev) = (self.ndim(), self.shape(), shape.ev);
        let heads = if n >= 3 { qs[n - 3] } else { 1 };
        let (q3, k3, v3) = (attention_operand(self)?, attention_operand(k)?, attention_operand(v)?);
        let mut out_shape = qs[..n - 1].to_vec();
        out_shape.push(ev);
        let out = Tensor::empty_on(self.backend(), &out_shape, self.dtype)?;
        let lse = Tensor::empty_on(self.backend(), &qs[..n - 1], self.dtype)?;
        let mask = mask.map(|m| mask_operand(m, &scores)).transpose()?;
        let a = crate::ops::attention::Attention {
            shape,
            mask,
            lse: lse.buf()?,
            q: q3.attention_strides()?,
            k: k3.attention_strides()?,
            v: v3.attention_strides()?,
            out: out.buf()?,
            heads,
            scale,
            causal,
        };
        crate::ops::attention::forward::run(&**self.backend(), &a)?;
        Ok(Some((out, lse)))
    }

    /// The gradients of `attention_fused` (queries `self`) by the backend's kernels, which
    /// recompute the probabilities from the forward's row log-sum-exps `lse (…, L)` (or
    /// `(…, L, 1)`) with `dot = Σ g ⊙ out` of the same shape, `g` the output's gradient:
    /// `(dq, dk, dv)` of the operands' shapes (batch dims not summed), or `None` where the
    /// backend has no kernels for these shapes (the caller then composes products).
    #[allow(clippy::too_many_arguments)]
    pub fn attention_backward_fused(
        &self,
        k: &Tensor,
        v: &Tensor,
        g: &Tensor,
        lse: &Tensor,
        dot: &Tensor,
        scale: f64,
        causal: bool,
        mask: Option<&Tensor>,
    ) -> Result<Option<(Tensor, Tensor, Tensor)>> {
        let (n, qs, ks, vs) = (self.ndim(), self.shape(), k.shape(), v.shape());
        let same = [k, v, g, lse, dot].iter().all(|t| t.dtype == self.dtype && t.device() == self.device());
        if !same || mask.is_some_and(|m| m.device() != self.device()) {
            return Ok(None);
        }
        let Some((shape, scores)) = self.attention_shape(k, v, mask) else {
            return Ok(None);
        };
        if g.shape() != [&qs[..n - 1], &vs[n - 1..]].concat()
            || !crate::ops::attention::backward::supports(&shape, &self.backend().capabilities())
        {
            return Ok(None);
        }
        let (batch, s, e, ev) = (shape.batch, shape.s, shape.e, shape.ev);
        let heads = if n >= 3 { qs[n - 3] } else { 1 };
        let (q3, k3, v3, g3) =
            (attention_operand(self)?, attention_operand(k)?, attention_operand(v)?, attention_operand(g)?);
        let rows = |t: &Tensor| -> Result<crate::backend::Operand> {
            let t = t.contiguous()?;
            t.operand_with(&[1])
        };
        let dq = Tensor::empty_on(self.backend(), qs, self.dtype)?;
        let dkv = Tensor::empty_on(self.backend(), &[batch * s * (e + ev)], self.dtype)?;
        let a = crate::ops::attention::AttentionBackward {
            shape,
            q: q3.attention_strides()?,
            k: k3.attention_strides()?,
            v: v3.attention_strides()?,
            g: g3.attention_strides()?,
            lse: rows(lse)?,
            dot: rows(dot)?,
            mask: mask.map(|m| mask_operand(m, &scores)).transpose()?,
            dq: dq.buf()?,
            dkv: dkv.buf()?,
            heads,
            scale,
            causal,
        };
        crate::ops::attention::backward::run(&**self.backend(), &a)?;
        let dims = |sh: &[usize]| sh.iter().map(|&d| d as i64).collect::<Vec<_>>();
        let dk = dkv.narrow(0, 0, (batch * s * e) as i64)?.reshape(&dims(ks))?;
        let dv = dkv.narrow(0, (batch * s * e) as i64, (batch * s * ev) as i64)?.reshape(&dims(vs))?;
        Ok(Some((dq, dk, dv)))
    }

    /// The kernels' view of attention over queries `self (…, L, E)`, keys `(…, S, E)` and values
    /// `(…, S, Ev)` of one dtype and the same batch dims, with the scores' shape `(…, L, S)`, or
    /// `None` where they do not fit it (a mask must broadcast to the scores and be of the
    /// queries' dtype, at most two batch dims beside it; nothing may be empty).
    fn attention_shape(
        &self,
        k: &Tensor,
        v: &Tensor,
        mask: Option<&Tensor>,
    ) -> Option<(crate::ops::attention::AttentionShape, Vec<usize>)> {
        let n = self.ndim();
        if n < 2 || k.ndim() != n || v.ndim() != n || k.dtype != self.dtype || v.dtype != self.dtype {
            return None;
        }
        let (qs, ks, vs) = (self.shape(), k.shape(), v.shape());
        let (l, e, s, ev) = (qs[n - 2], qs[n - 1], ks[n - 2], vs[n - 1]);
        if qs[..n - 2] != ks[..n - 2] || qs[..n - 2] != vs[..n - 2] || ks[n - 1] != e || vs[n - 2] != s {
            return None;
        }
        let batch: usize = qs[..n - 2].iter().product();
        let mut scores = qs[..n - 1].to_vec();
        scores.push(s);
        if let Some(m) = mask {
            let fits = broadcast_shapes(m.shape(), &scores).is_ok_and(|b| b == scores);
            if m.dtype != self.dtype || n > 4 || !fits {
                return None;
            }
        }
        if l == 0 || s == 0 || batch == 0 {
            return None;
        }
        let masked = mask.is_some();
        Some((crate::ops::attention::AttentionShape { dtype: self.dtype, batch, l, s, e, ev, masked }, scores))
    }

    /// Strides `[b0, b1, row]` of a tensor `attention_operand` made (0 for missing batch dims).
    fn attention_strides(&self) -> Result<crate::backend::Operand> {
        let st = &self.layout.strides;
        let m = self.ndim();
        let b0 = if m >= 4 { st[m - 4] } else { 0 };
        let b1 = if m >= 3 { st[m - 3] } else { 0 };
        self.operand_with(&[b0, b1, st[m - 2]])
    }
}

/// An attention operand as the kernels read it: up to two batch dims through strides (`(B, H)`
/// of a head-split view needs no copy; more are merged first), unit column stride and
/// vec4-aligned rows, heads and offset, else a copy.
fn attention_operand(t: &Tensor) -> Result<Tensor> {
    let n = t.ndim();
    let t = if n > 4 {
        let sh = t.shape();
        t.reshape(&[-1, sh[n - 3] as i64, sh[n - 2] as i64, sh[n - 1] as i64])?
    } else {
        t.clone()
    };
    let st = &t.layout.strides;
    let m = t.ndim();
    let ok = st[m - 1] == 1 && t.layout.offset % 4 == 0 && st[..m - 1].iter().all(|s| s % 4 == 0);
    if ok {
        Ok(t)
    } else {
        t.deep_clone()
    }
}

/// A mask broadcasting to the scores `(…, L, S)`, read with strides `[b0, b1, row, col]` (0
/// where broadcast).
fn mask_operand(m: &Tensor, scores: &[usize]) -> Result<crate::backend::Operand> {
    let mut st = m.layout.broadcast_strides(scores);
    while st.len() < 4 {
        st.insert(0, 0);
    }
    m.operand_with(&st)
}
