//! General elementwise fusion. On a device that fuses, an elementwise op does not
//! dispatch: its result is *pending*, an expression over its inputs. A later elementwise op that
//! consumes a pending tensor inlines that expression, so a chain of any length, with broadcasting,
//! scalars and casts, becomes one generated kernel. A pending tensor is computed ("materialized")
//! when something needs its buffer: a read, a matmul or row-wise kernel, a view it cannot be
//! inlined through, or a flush (batch threshold, the 16 ms timer, `sync_device`). A reduction
//! reads a pending input as its kernel's prologue instead (`reduction_prologue`).
//!
//! The seed's knobs (`Tuning`'s `fusion_*`) govern it: ops on fewer than `min_size` elements run
//! at once (a bypass); a pending input is inlined only if it was made within the last `window`
//! ops, else it is materialized first; `patterns` name op sequences that the statistics count.

use crate::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

use super::{Leaf, MatmulRoot, Pending, State, Storage, Tensor};
use crate::backend::tuning::Tuning;
use crate::backend::{
    Arg, Backend, BufId, Elementwise, Epilogue, Func, Kernel, Matmul, Node, Operand as KernelOperand,
};
use crate::dtype::{Compute, DType};
use crate::engine;
use crate::error::Result;
use crate::shape::Layout;

/// A fused kernel reads at most this many tensors, scalars and ops.
const MAX_LEAVES: usize = 7;
/// A matmul epilogue reads at most this many tensors (`backend::webgpu` has the same limit).
const MAX_EPILOGUE_LEAVES: usize = 5;
const MAX_SCALARS: usize = 8;
const MAX_NODES: usize = 32;

#[derive(Clone, Debug, serde::Serialize)]
pub struct Pattern {
    pub name: String,
    pub ops: Vec<String>,
    pub description: String,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FusionStats {
    /// Kernels that computed two or more ops in one dispatch.
    pub fusions: u64,
    /// Elementwise ops run unfused because of `min_size` (or the fuser's limits).
    pub bypasses: u64,
    /// Ops that ran inside fused kernels.
    pub fused_ops: u64,
    /// How many fused kernels contained each pattern's op sequence.
    pub patterns: BTreeMap<String, u64>,
}

pub struct Config {
    pub patterns: Vec<Pattern>,
    pub stats: FusionStats,
    seq: u64,
    pending: Vec<Weak<Storage>>,
}

fn builtin_patterns() -> Vec<Pattern> {
    [
        ("add_relu", &["add", "relu"][..], "bias add followed by ReLU"),
        ("scale_shift", &["mul", "add"], "x * gamma + beta"),
        ("squared_diff", &["sub", "square"], "(a - b)^2"),
    ]
    .into_iter()
    .map(|(name, ops, d)| Pattern {
        name: name.into(),
        ops: ops.iter().map(|s| s.to_string()).collect(),
        description: d.into(),
    })
    .collect()
}

thread_local! {
    static CONFIG: RefCell<Config> = RefCell::new(Config {
        patterns: builtin_patterns(),
        stats: FusionStats::default(),
        seq: 0,
        pending: Vec::new(),
    });
}

/// Reads or changes the fusion patterns, statistics and pending chains (the settings are
/// `Tuning`'s `fusion_*`, through `engine::tuning`).
pub fn with_config<R>(f: impl FnOnce(&mut Config) -> R) -> R {
    CONFIG.with(|c| f(&mut c.borrow_mut()))
}

/// Runs `f` with the fusion window widened by `extra` ops (a window of 0, no inlining, stays):
/// for a rule that reads its pending inputs again after a few ops of its own — batch norm's
/// backward reads the incoming gradient and `x − mean` in two sums, then in `dx` — so they are
/// recomputed where read instead of written out and read back.
pub(crate) fn with_wider_window<R>(extra: u64, f: impl FnOnce() -> R) -> R {
    scoped(
        |t| {
            if t.fusion_window > 0 {
                t.fusion_window = t.fusion_window.saturating_add(extra);
            }
        },
        f,
    )
}

/// Runs `f` with small elementwise ops fused too (`min_size` 0): for a rule whose per-channel
/// terms feed large kernels — batch norm's `rsqrt(var + eps)` the output's kernel, its
/// backward's coefficients dx's — so they are computed inside those kernels (a broadcast leaf
/// inlined) instead of as one tiny dispatch each.
pub(crate) fn with_small_fused<R>(f: impl FnOnce() -> R) -> R {
    scoped(|t| t.fusion_min_size = 0, f)
}

/// Runs `f` with the window and `min_size` as `set` leaves them, restored after.
fn scoped<R>(set: impl FnOnce(&mut Tuning), f: impl FnOnce() -> R) -> R {
    let saved = engine::tune(|t| {
        let saved = (t.fusion_window, t.fusion_min_size);
        set(t);
        saved
    });
    let r = f();
    engine::tune(|t| (t.fusion_window, t.fusion_min_size) = saved);
    r
}

/// Counts an op (the clock the fusion window is measured on).
pub(crate) fn tick() -> u64 {
    with_config(|c| {
        c.seq += 1;
        c.seq
    })
}

/// An operand of an elementwise op being recorded.
pub(crate) enum Operand<'a> {
    Tensor(&'a Tensor),
    Scalar(f64),
}

/// Builds the expression of `func(args)` over `shape`, inlining pending operands where allowed.
/// Operands that are not inlined are materialized now, so every leaf of a pending expression is
/// a ready buffer (no recursion when it is computed later).
pub(crate) fn record(
    args: &[Operand<'_>],
    func: Func,
    compute: Compute,
    out_dtype: DType,
    shape: &[usize],
    inline: bool,
) -> Result<Pending> {
    let seq = tick();
    let window = engine::tuning(|t| t.fusion_window);
    let mut p = Pending {
        nodes: vec![],
        leaves: vec![],
        shape: shape.to_vec(),
        seq,
        absorbed: Default::default(),
        matmul: None,
    };
    let mut node_args = Vec::with_capacity(args.len());
    for a in args {
        let arg = match a {
            Operand::Scalar(x) => Arg::Scalar(*x),
            Operand::Tensor(t) => {
                match t.inlinable(window, seq).filter(|src| inline && p.can_adopt(src, shape, out_dtype)) {
                    Some(src) => {
                        if src.matmul.is_some() {
                            p.matmul = src.matmul.clone();
                        }
                        p.inline(&src, shape)
                    }
                    None => {
                        t.materialize()?;
                        Arg::Leaf(p.leaf(t, t.layout.broadcast_strides(shape)))
                    }
                }
            }
        };
        node_args.push(arg);
    }
    p.nodes.push(Node { func, compute, out_dtype, args: node_args });
    Ok(p)
}

impl Pending {
    /// Whether `src` can be inlined here as far as a matmul root goes: an expression over a
    /// product extends that matmul's epilogue when the result keeps the product's shape (no
    /// broadcast of the product), stays float32, and reads no second product.
    fn can_adopt(&self, src: &Pending, shape: &[usize], out_dtype: DType) -> bool {
        match (&src.matmul, &self.matmul) {
            (None, _) => true,
            (Some(s), Some(mine)) => Rc::ptr_eq(s, mine) && src.shape == shape && out_dtype == DType::Float32,
            (Some(_), None) => src.shape == shape && out_dtype == DType::Float32,
        }
    }

    fn leaf(&mut self, t: &Tensor, strides: Vec<usize>) -> usize {
        let same =
            |l: &Leaf| l.tensor.same_storage(t) && l.tensor.layout.offset == t.layout.offset && l.strides == strides;
        if let Some(i) = self.leaves.iter().position(same) {
            return i;
        }
        self.leaves.push(Leaf { tensor: t.clone(), strides });
        self.leaves.len() - 1
    }

    /// Copies `src`'s nodes in (its leaves re-broadcast to this shape); returns its result.
    fn inline(&mut self, src: &Pending, shape: &[usize]) -> Arg {
        src.absorbed.set(true);
        let base = self.nodes.len();
        let leaf_map: Vec<usize> = src
            .leaves
            .iter()
            .map(|l| {
                let view =
                    Layout { shape: src.shape.clone(), strides: l.strides.clone(), offset: l.tensor.layout.offset };
                self.leaf(&l.tensor, view.broadcast_strides(shape))
            })
            .collect();
        for n in &src.nodes {
            let args = n
                .args
                .iter()
                .map(|a| match *a {
                    Arg::Leaf(l) => Arg::Leaf(leaf_map[l]),
                    Arg::Node(m) => Arg::Node(base + m),
                    s => s,
                })
                .collect();
            self.nodes.push(Node { args, ..n.clone() });
        }
        Arg::Node(self.nodes.len() - 1)
    }

    /// Whether the kernel fits the fuser's limits (a matmul epilogue binds fewer tensors: the
    /// product's operands take two of the stage's storage bindings).
    pub(crate) fn fits(&self) -> bool {
        let scalars = self.nodes.iter().flat_map(|n| &n.args).filter(|a| matches!(a, Arg::Scalar(_))).count();
        let max_leaves = if self.matmul.is_some() { MAX_EPILOGUE_LEAVES } else { MAX_LEAVES };
        self.leaves.len() <= max_leaves && scalars <= MAX_SCALARS && self.nodes.len() <= MAX_NODES
    }
}

impl Tensor {
    /// The pending expression this tensor can be inlined as: its storage is pending, it views it
    /// whole and contiguously, and it was made within the fusion window.
    fn inlinable(&self, window: u64, now: u64) -> Option<Rc<Pending>> {
        match &*self.storage.state.borrow() {
            State::Pending(p) if self.layout == Layout::contiguous(&p.shape) && now - p.seq <= window => {
                Some(p.clone())
            }
            _ => None,
        }
    }
}

/// Remembers a pending storage so that a flush computes it.
pub(crate) fn register(s: &Rc<Storage>) {
    with_config(|c| {
        if c.pending.len() >= 1024 {
            c.pending.retain(|w| w.strong_count() > 0);
        }
        c.pending.push(Rc::downgrade(s));
    });
}

/// Materializes the ends of pending chains (expressions no other pending expression inlined):
/// what a flush owes the user — `y = a.add(b).relu(); await sync_device()` computes `y` — while
/// the intermediates a chain absorbed stay uncomputed. Returns the first new failure, if any;
/// tensors that failed before are not pending any more, so no later flush retries or reports them.
pub fn materialize_chain_ends() -> Result<()> {
    let pending: Vec<Rc<Storage>> = with_config(|c| {
        c.pending.retain(|w| w.strong_count() > 0);
        c.pending.iter().filter_map(|w| w.upgrade()).collect()
    });
    let mut first = Ok(());
    for s in pending {
        let end = matches!(&*s.state.borrow(), State::Pending(p) if !p.absorbed.get());
        if end {
            // A failure marks that tensor failed (`Storage::materialize`); the others still compute.
            if let Err(e) = s.materialize() {
                first = first.and(Err(e));
            }
        }
    }
    first
}

/// Materializes the pending tensors that read `target` (before an in-place write changes it).
/// Other pending tensors stay expressions: in JS the intermediates of a chain stay alive until
/// the GC runs, and computing each of them at a flush would undo the fusion.
pub(crate) fn materialize_readers(target: &Rc<Storage>) -> Result<()> {
    let pending: Vec<Rc<Storage>> = with_config(|c| {
        c.pending.retain(|w| w.strong_count() > 0);
        c.pending.iter().filter_map(|w| w.upgrade()).collect()
    });
    for s in pending {
        let reads = match &*s.state.borrow() {
            State::Pending(p) => {
                p.leaves.iter().any(|l| Rc::ptr_eq(&l.tensor.storage, target))
                    || p.matmul
                        .as_ref()
                        .is_some_and(|m| Rc::ptr_eq(&m.a.storage, target) || Rc::ptr_eq(&m.b.storage, target))
            }
            _ => false,
        };
        // A reader that fails is marked failed and reports its error where it is used; the
        // write goes on.
        if reads {
            let _ = s.materialize();
        }
    }
    Ok(())
}

/// A fused reduction reads at most this many tensors (`backend::webgpu` has the same limit).
const MAX_REDUCE_LEAVES: usize = 5;

/// The pending expression that a reduction of `t` reads directly, as its prologue (one kernel
/// for `(a - b).square().mean()`): fusion is on, `t` could be inlined into an elementwise op
/// now (pending, viewed whole and contiguously, within the window), and it fits the reduction
/// kernel's limits. The expression is marked absorbed: a flush need not compute it.
pub(crate) fn reduction_prologue(t: &Tensor) -> Option<Rc<Pending>> {
    let (enabled, window) = engine::tuning(|k| (k.fusion_enabled, k.fusion_window));
    let now = with_config(|c| c.seq);
    if !enabled || !t.backend().capabilities().fusion {
        return None;
    }
    let p = t.inlinable(window, now)?;
    // A product is computed first (the reduction kernel has no matmul in it).
    if p.matmul.is_some() {
        return None;
    }
    let scalars = p.nodes.iter().flat_map(|n| &n.args).filter(|a| matches!(a, Arg::Scalar(_))).count();
    // A constant (`full`, no leaves) is computed first: the kernel's first leaf gives its layout.
    if p.leaves.is_empty() || p.leaves.len() > MAX_REDUCE_LEAVES || scalars > MAX_SCALARS {
        return None;
    }
    p.absorbed.set(true);
    Some(p)
}

/// Counts a materialized elementwise kernel in the statistics.
pub(crate) fn count_kernel(nodes: &[Node]) {
    // One node is no fusion: skip the names (an allocation per eager op otherwise).
    if nodes.len() < 2 {
        return;
    }
    count_ops(node_names(nodes));
}

/// Counts a reduction that computed `nodes` as its prologue.
pub(crate) fn count_reduction(nodes: &[Node], reduction: &str) {
    let mut names = node_names(nodes);
    names.push(reduction.to_string());
    count_ops(names);
}

fn node_names(nodes: &[Node]) -> Vec<String> {
    nodes
        .iter()
        .map(|n| match n.func {
            Func::Op(op) => op.info().name,
            Func::Cast => "to",
            Func::Where => "where",
        })
        .map(String::from)
        .collect()
}

fn count_ops(names: Vec<String>) {
    with_config(|c| {
        if names.len() < 2 {
            return;
        }
        c.stats.fusions += 1;
        c.stats.fused_ops += names.len() as u64;
        for p in &c.patterns {
            if !p.ops.is_empty() && names.windows(p.ops.len()).any(|w| w.iter().zip(&p.ops).all(|(a, b)| a == b)) {
                *c.stats.patterns.entry(p.name.clone()).or_default() += 1;
            }
        }
    });
}

/// Whether matmuls may start pending expressions (fusion on, batching on, a fusing device, at
/// least `min_size` outputs).
pub(crate) fn fuses_matmul(backend: &Rc<dyn Backend>, outputs: usize) -> bool {
    backend.capabilities().fusion
        && engine::tuning(|t| t.fusion_enabled && !t.immediate && outputs >= t.fusion_min_size)
}

/// A pending product `root` (its expression is the product itself, `Arg::Acc`): elementwise ops
/// on it extend its epilogue until something needs its buffer.
pub(crate) fn matmul_pending(root: MatmulRoot) -> Pending {
    let shape = [&root.batch[..], &[root.m, root.n]].concat();
    Pending {
        nodes: vec![Node { func: Func::Cast, compute: Compute::F32, out_dtype: DType::Float32, args: vec![Arg::Acc] }],
        leaves: vec![],
        shape,
        seq: tick(),
        absorbed: Default::default(),
        matmul: Some(Rc::new(root)),
    }
}

/// Whether `strides` over `batch ++ [m, n]` index batches by their flat number (see `Epilogue`),
/// dims of one entry aside (a batch entry cut from a larger tensor keeps its old strides there).
/// Rewrites the strides of those dims, which index nothing, so that each batch stride is the
/// next one's times its size and the last one steps batches.
fn flat_batches(strides: &mut [usize], batch: &[usize]) -> bool {
    let mut want = batch.iter().zip(strides.iter()).filter(|(&b, _)| b > 1).map(|(_, &s)| s).next_back().unwrap_or(0);
    for d in (0..batch.len()).rev() {
        if batch[d] > 1 && strides[d] != want {
            return false;
        }
        strides[d] = want;
        want *= batch[d];
    }
    true
}

/// Computes a pending product and its epilogue: one matmul dispatch, or, when a leaf's batch
/// strides do not flatten, the plain product followed by the expression as an elementwise kernel.
pub(crate) fn run_matmul(backend: &Rc<dyn Backend>, p: &Pending, root: &MatmulRoot) -> Result<BufId> {
    let operand = |t: &Tensor, strides: &[usize]| -> Result<KernelOperand> {
        Ok(KernelOperand {
            buf: t.storage.materialize()?,
            dtype: t.dtype,
            offset: t.layout.offset,
            strides: strides.to_vec(),
        })
    };
    let mut leaves = p.leaves.iter().map(|l| operand(&l.tensor, &l.strides)).collect::<Result<Vec<_>>>()?;
    let n = crate::shape::numel(&p.shape) as u64;
    let identity = p.nodes.len() == 1 && p.leaves.is_empty();
    let fused = leaves.iter_mut().all(|o| flat_batches(&mut o.strides, &root.batch));
    let (a, b) = (operand(&root.a, &root.a_strides)?, operand(&root.b, &root.b_strides)?);
    let out = backend.alloc((n * 4).max(4))?;
    let k = Matmul {
        a,
        b,
        batch: root.batch.clone(),
        m: root.m,
        n: root.n,
        k: root.k,
        out,
        dtype: DType::Float32,
        epilogue: (fused && !identity).then(|| Epilogue { nodes: p.nodes.clone(), leaves: leaves.clone() }),
        tri: root.tri,
    };
    if let Err(e) = backend.launch(Kernel::Matmul(&k)) {
        backend.release(out);
        return Err(e);
    }
    if identity {
        return Ok(out);
    }
    let mut names = vec!["matmul".to_string()];
    names.extend(node_names(&p.nodes[1..]));
    if fused {
        count_ops(names);
        return Ok(out);
    }
    // The product becomes one more leaf of a plain elementwise kernel.
    let acc = leaves.len();
    leaves.push(KernelOperand {
        buf: out,
        dtype: DType::Float32,
        offset: 0,
        strides: crate::shape::contiguous_strides(&p.shape),
    });
    let nodes: Vec<Node> = p
        .nodes
        .iter()
        .map(|nd| Node {
            args: nd.args.iter().map(|a| if *a == Arg::Acc { Arg::Leaf(acc) } else { *a }).collect(),
            ..nd.clone()
        })
        .collect();
    let res = backend.alloc((n * 4).max(4)).inspect_err(|_| backend.release(out))?;
    let r = backend.launch(Kernel::Elementwise(&Elementwise {
        nodes: nodes.clone(),
        leaves,
        shape: p.shape.clone(),
        out: res,
        out_view: None,
    }));
    backend.release(out);
    if let Err(e) = r {
        backend.release(res);
        return Err(e);
    }
    count_kernel(&nodes[1..]);
    Ok(res)
}
