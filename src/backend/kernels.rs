//! The kernel descriptors of the backend contract: plain structs naming buffers by `BufId`,
//! with the strides, shapes and options a kernel needs (`Elementwise`, `Reduce`, `Matmul`, the
//! row kernels, gathers and scatters, sorts and scans, the fused loss and optimizer updates;
//! convolutions and pooling: `kernels_conv.rs`).

use super::BufId;
use crate::dtype::{Compute, DType};
use crate::ops::Op;

/// A strided view of a buffer, as a kernel reads it.
#[derive(Clone, Debug)]
pub struct Operand {
    pub buf: BufId,
    pub dtype: DType,
    pub offset: usize,
    /// One stride per dim of the kernel's index space (0 where broadcast).
    pub strides: Vec<usize>,
}

/// What one node of an elementwise kernel computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Func {
    Op(Op),
    /// Identity in the input's compute type, then stored as `out_dtype`: copies and casts.
    Cast,
    /// `where(cond, a, b)`: args (cond, a, b), all loaded in the node's compute type; a nonzero
    /// cond picks `a` (also `masked_fill`).
    Where,
}

/// An argument of a node: a kernel input (strided buffer), an earlier node, or a scalar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    Leaf(usize),
    Node(usize),
    /// A Python-style scalar operand, converted to the node's compute type.
    Scalar(f64),
    /// The product computed at this element, in a matmul's epilogue (float32); never in an
    /// `Elementwise` kernel.
    Acc,
}

/// One op of an elementwise kernel: `func(args)` computed in `compute`, its value rounded to
/// `out_dtype` exactly as a stored tensor would be (so a fused chain gives the unfused result).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub func: Func,
    pub compute: Compute,
    pub out_dtype: DType,
    pub args: Vec<Arg>,
}

/// An elementwise kernel over `shape`: nodes in evaluation order, the last one stored into a
/// contiguous `out`. One node is one op; several are a fused chain (`tensor/fusion.rs`).
#[derive(Clone, Debug)]
pub struct Elementwise {
    pub nodes: Vec<Node>,
    pub leaves: Vec<Operand>,
    pub shape: Vec<usize>,
    pub out: BufId,
    /// Where the results go in `out`: `None` for contiguous from 0, else (offset, strides over
    /// `shape`) — an in-place write into a view (`x[1:] = …`). `out` is never also a leaf.
    pub out_view: Option<(usize, Vec<usize>)>,
}

impl Elementwise {
    pub fn out_dtype(&self) -> DType {
        self.nodes.last().expect("a kernel has a node").out_dtype
    }
}

/// What a `Reduce` kernel computes over each group of reduced elements. NaN propagates through
/// the value reductions (amax, norms, logsumexp) as in PyTorch; argmax/argmin give the first
/// occurrence, with NaN counting as the extreme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Mean,
    Prod,
    Max,
    Min,
    ArgMax,
    ArgMin,
    /// 1 when every element is nonzero (NaN is nonzero); the output is bool or uint8.
    All,
    Any,
    /// Nonzero elements, as an int64 count.
    CountNonzero,
    /// Two-pass variance with `param` = the correction (Bessel's is 1).
    Var,
    Std,
    /// Two passes: the max, then log Σ exp(x - max) + max.
    LogSumExp,
    /// Vector norms: Σ|x|^p ^ (1/p) with `param` = p, and the special orders.
    NormP,
    Norm0,
    Norm1,
    Norm2,
    NormInf,
    NormNegInf,
}

impl ReduceOp {
    /// Passes over the reduced elements (each pass sees the one before's result).
    pub fn passes(self) -> u32 {
        match self {
            // The mean, its refinement by the mean deviation from it, the squared deviations.
            ReduceOp::Var | ReduceOp::Std => 3,
            ReduceOp::LogSumExp => 2,
            _ => 1,
        }
    }
}

/// An elementwise expression a `Reduce` reads instead of one buffer (a fused prologue, as in
/// `(a - b).square().mean()`): `nodes` over `leaves`, whose strides cover `outer ++ inner`; the
/// last node's value, stored as the input dtype, is the reduced element.
#[derive(Clone, Debug)]
pub struct Prologue {
    pub nodes: Vec<Node>,
    pub leaves: Vec<Operand>,
}

/// Reduces the trailing `inner` dims of `input` (strides cover `outer ++ inner`) into a
/// contiguous output of `outer` shape. With a `prologue`, the elements are that expression's
/// values (`input` then only names their dtype).
#[derive(Clone, Debug)]
pub struct Reduce {
    pub op: ReduceOp,
    pub compute: Compute,
    pub input: Operand,
    pub outer: Vec<usize>,
    pub inner: Vec<usize>,
    pub out: BufId,
    pub out_dtype: DType,
    /// The op's scalar parameter (`Var`/`Std`: correction; `NormP`: p), else 0.
    pub param: f64,
    pub prologue: Option<Prologue>,
}

/// A row-wise NN kernel (`Rowwise`): one row = the `inner` elements of one `outer` index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowOp {
    Softmax,
    LogSoftmax,
    /// (x - mean) / sqrt(var + eps) [* weight] [+ bias], biased variance.
    LayerNorm,
    /// x / sqrt(mean(x²) + eps) [* weight].
    RmsNorm,
    /// Softmax of each row with the entries after the diagonal excluded (they come out 0): row
    /// `r` is query `r % queries` of a `(…, queries, S)` score tensor and keeps columns `≤` that
    /// query (PyTorch's `is_causal`, top-left aligned).
    CausalSoftmax,
    /// `y · (g − Σ g·y)` from softmax's output `y` (the input) and its gradient `g` (`grad`).
    SoftmaxBackward,
    /// `g − exp(y) · Σ g` from log_softmax's output `y` (the input) and its gradient `g`.
    LogSoftmaxBackward,
}

impl RowOp {
    /// Whether the op reads a second row, `Rowwise::grad`.
    pub fn takes_grad(self) -> bool {
        matches!(self, RowOp::SoftmaxBackward | RowOp::LogSoftmaxBackward)
    }
}

/// Normalizes each row of `input` (strides cover `outer ++ inner`) into `out`, written with
/// `out_strides` (also over `outer ++ inner`). `weight`/`bias` are contiguous over `inner`;
/// `grad` (the backward ops' second row) has the input's strides. Float32 only.
#[derive(Clone, Debug)]
pub struct Rowwise {
    pub op: RowOp,
    pub input: Operand,
    pub weight: Option<Operand>,
    pub bias: Option<Operand>,
    pub outer: Vec<usize>,
    pub inner: Vec<usize>,
    pub out: BufId,
    pub out_strides: Vec<usize>,
    pub eps: f64,
    /// The backward ops' gradient rows, laid out as `input` (its offset differs).
    pub grad: Option<Operand>,
    /// `CausalSoftmax`'s query count `L` (rows cycle through queries `0..L`); 0 otherwise.
    pub queries: usize,
}

/// `out[i] = src[i with its coordinate along `dim` replaced by index[i]]` over `shape` (the
/// output's, contiguous): index_select, gather, take_along_dim. `src` and `index` strides cover
/// `shape` (`src`'s entry at `dim` is its stride along `dim`); indices outside `0..src_dim_size`
/// read as 0. `index` is int32/int64 storage.
#[derive(Clone, Debug)]
pub struct Gather {
    pub src: Operand,
    pub index: Operand,
    pub dim: usize,
    pub src_dim_size: usize,
    pub shape: Vec<usize>,
    pub out: BufId,
}

/// The value a `Scatter` writes: a tensor read over the index's shape, or a scalar.
#[derive(Clone, Debug)]
pub enum ScatterSrc {
    Tensor(Operand),
    Scalar(f64),
}

/// How a `Scatter` combines the source value with the output's: `Assign` overwrites (where
/// indices repeat, one write wins); the others reduce into it atomically (`scatter_add`,
/// `scatter_reduce`'s prod/amax/amin; amax/amin propagate NaN, as PyTorch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScatterOp {
    Assign,
    Add,
    Prod,
    Max,
    Min,
}

/// For each element i of `index` (strides over `shape`, the index's shape): `out` at i's
/// coordinates, with the one along `dim` replaced by index[i], gets the source value combined
/// by `op`. `out` holds a contiguous copy of self (`out_strides`, `dtype`); indices outside
/// `0..dim_size` are skipped.
#[derive(Clone, Debug)]
pub struct Scatter {
    pub out: BufId,
    pub out_strides: Vec<usize>,
    pub dtype: DType,
    pub index: Operand,
    pub src: ScatterSrc,
    pub dim: usize,
    pub dim_size: usize,
    pub shape: Vec<usize>,
    pub op: ScatterOp,
}

/// Batched `out[b] = a[b] @ b[b]`: `a` strides cover `batch ++ [m, k]`, `b` strides cover
/// `batch ++ [k, n]`; output contiguous `[batch.., m, n]`. Inputs share `dtype`.
#[derive(Clone, Debug)]
pub struct Matmul {
    pub a: Operand,
    pub b: Operand,
    pub batch: Vec<usize>,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub out: BufId,
    pub dtype: DType,
    /// Elementwise ops applied to each product before it is stored (bias, activation, residual):
    /// one dispatch for `F.gelu(F.linear(x, w, b)) + r`. Float32 products and results only.
    pub epilogue: Option<Epilogue>,
    /// Causal attention's triangular structure, which a kernel may use to skip work.
    pub tri: Tri,
}

/// What a product may skip in causal attention (per batch, rows and columns counted from 0). A
/// kernel that ignores it computes the full product, which is also a right answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tri {
    #[default]
    None,
    /// Only outputs on or below the diagonal (column ≤ row) are needed; the others may be
    /// written as 0 (scores `Q Kᵀ` and `dO Vᵀ` of causal attention).
    LowerOut,
    /// `a` is 0 above its diagonal (`a[r][k] = 0` for `k > r`): row `r` sums over `k ≤ r` only
    /// (`P V`, `dS K`).
    LowerA,
    /// `a` is the transpose of such a matrix (`a[r][k] = 0` for `k < r`): row `r` sums over
    /// `k ≥ r` only (`Pᵀ dO`, `dSᵀ Q`).
    LowerAT,
}

/// A matmul's fused epilogue: `nodes` as in `Elementwise`, where `Arg::Acc` is the product at
/// the element being stored. Each leaf's strides cover the output `[batch.., m, n]`, and its
/// batch strides flatten to one (`stride[d] == stride[d + 1] * batch[d + 1]`, or all 0), since
/// the kernels index batches by their flat number. The last node's dtype is float32.
#[derive(Clone, Debug)]
pub struct Epilogue {
    pub nodes: Vec<Node>,
    pub leaves: Vec<Operand>,
}

/// A user-registered WGSL compute kernel (`torch.register_kernel`, docs/extending.md). The
/// source binds the uniform parameters at 0, `out` (read_write) at 1 and `inputs` (read-only)
/// from 2, all contiguous word buffers from word 0; it runs `groups` workgroups.
#[derive(Clone, Debug)]
pub struct UserKernel {
    pub name: String,
    pub source: std::rc::Rc<str>,
    pub inputs: Vec<BufId>,
    pub out: BufId,
    pub meta: Vec<u32>,
    pub groups: u32,
}

/// A check of a tensor's values on the device (`Kernel::Check`): every element must lie
/// in `[lo, hi]` (NaN fails) unless it equals `except`. The first failing element is raised at
/// the next read or sync, as CUDA's device-side assert is, but with the error PyTorch raises on
/// the CPU: `message.low` / `message.high` (below `lo` / above `hi`) with `{}` replaced by the
/// value. `x` is read over `shape` (int32 values compare as integers, float32 as floats).
pub struct ValueCheck {
    pub x: Operand,
    pub shape: Vec<usize>,
    pub lo: f64,
    pub hi: f64,
    pub except: Option<f64>,
    pub message: CheckMessage,
}

/// The error a failed `ValueCheck` raises.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CheckMessage {
    pub kind: crate::error::ErrorKind,
    pub low: String,
    pub high: String,
}

impl CheckMessage {
    /// One message for both sides.
    pub fn new(kind: crate::error::ErrorKind, message: impl Into<String>) -> CheckMessage {
        let m = message.into();
        CheckMessage { kind, low: m.clone(), high: m }
    }

    /// The error for `value` (below `lo` when `low`).
    pub fn error(&self, low: bool, value: &str) -> crate::error::Error {
        let template = if low { &self.low } else { &self.high };
        crate::error::Error::new(self.kind, template.replacen("{}", value, 1))
    }
}
