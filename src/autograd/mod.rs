//! Autograd: a tape in Rust. A differentiable op (`ops.rs`) computes its result
//! with the engine, then, when grad mode is on and an input requires grad, gives the result a
//! `Node` whose backward closure is written with differentiable ops (`rules.rs`), so backward
//! passes fuse like forward ones and can themselves be differentiated (double backward).
//! `backward`/`grad` run the graph in topological order, one call across the wasm boundary.

pub mod attention;
pub mod conv;
pub mod kernels;
pub mod ops;
pub mod pool;
mod rules;
pub mod scan;
pub mod scatter_reduce;

use crate::cell::RefCell;
use std::cell::Cell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use crate::error::Result;
use crate::tensor::Tensor;
use crate::{bail, err};

/// A gradient hook: sees a gradient, may replace it (`Tensor.register_hook`).
pub type Hook = Rc<dyn Fn(&Tensor) -> Result<Option<Tensor>>>;

/// The per-tensor autograd state.
#[derive(Default)]
pub struct Meta {
    pub requires_grad: Cell<bool>,
    pub grad: RefCell<Option<Tensor>>,
    pub grad_fn: Option<Rc<Node>>,
    /// Which output of `grad_fn` this tensor is.
    pub output_nr: usize,
    pub retains_grad: Cell<bool>,
    pub hooks: RefCell<Vec<Hook>>,
}

/// A tensor's autograd state, shared by its handles (`Tensor::alias`): its history (`None` for a
/// tensor that never took part in a graph) and, for a view, the tensor it was taken from.
#[derive(Default)]
pub struct Slot {
    meta: Cell<Option<Rc<Meta>>>,
    view: Option<ViewOf>,
}

/// What a view knows of its base (the tensor whose storage it reads, never itself a view): an
/// in-place write through the view rebases the base's history (PyTorch's CopySlices), and a
/// view whose storage was written since its history was made takes the base's new history
/// when next used.
struct ViewOf {
    base: Tensor,
    /// The storage version this view's history reflects.
    version: Cell<u64>,
    /// Whether grad mode was on when the view was made.
    tracked: bool,
    /// For a piece of `split`/`chunk`/`unbind` (or a view of one): the function and the output's
    /// position. PyTorch forbids in-place writes to these where autograd would have to rebase
    /// one output of a multi-output node.
    multi: Cell<Option<MultiOutput>>,
}

/// The function a view came out of, with others (`"Split"`, output 1).
#[derive(Clone, Copy)]
struct MultiOutput {
    name: &'static str,
    index: usize,
}

impl Slot {
    pub(crate) fn of(meta: Option<Rc<Meta>>) -> Slot {
        Slot { meta: Cell::new(meta), view: None }
    }

    /// The slot of a new view of `base` (an alias of the base's own handle).
    /// `parent` is the tensor the view is taken from: a view of a multi-output piece is one too.
    pub(crate) fn view_of(base: Tensor, version: u64, parent: Option<&Slot>) -> Slot {
        let tracked = is_grad_enabled();
        let multi = Cell::new(parent.and_then(|p| p.view.as_ref()).and_then(|v| v.multi.get()));
        Slot { meta: Cell::default(), view: Some(ViewOf { base, version: Cell::new(version), tracked, multi }) }
    }

    /// For a view: its base.
    pub(crate) fn view_base(&self) -> Option<&Tensor> {
        self.view.as_ref().map(|v| &v.base)
    }

    /// The same view relation with another history (a recorded op's output that is a view).
    fn with_meta(&self, meta: Rc<Meta>) -> Slot {
        let view = self.view.as_ref().map(|v| ViewOf {
            base: v.base.alias(),
            version: v.version.clone(),
            tracked: v.tracked,
            multi: v.multi.clone(),
        });
        Slot { meta: Cell::new(Some(meta)), view }
    }
}

/// The grads of a node's outputs → the grads of its inputs (one per `next` edge).
pub type Backward = Box<dyn Fn(&[Option<Tensor>]) -> Result<Vec<Option<Tensor>>>>;

/// A `grad_fn`: how to push gradients from an op's outputs to its inputs.
pub struct Node {
    pub name: String,
    pub next: Vec<Option<Edge>>,
    n_outputs: usize,
    backward: RefCell<Option<Backward>>,
    /// Tensors the backward closure reads, with their storage versions when recorded.
    saved: Vec<(Tensor, u64)>,
    /// The tensors this node produced (for `retain_grad` and hooks on non-leaf tensors).
    outputs: RefCell<Vec<Weak<Meta>>>,
}

/// Where an input's gradient goes: the node that produced it, or a leaf's accumulator.
#[derive(Clone)]
pub enum Edge {
    Node(Rc<Node>, usize),
    Leaf(Rc<Meta>),
}

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
}

pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(|g| g.get())
}

/// Sets grad mode (`torch.no_grad` / `enable_grad`); returns the previous mode.
pub fn set_grad_enabled(on: bool) -> bool {
    GRAD_ENABLED.with(|g| g.replace(on))
}

/// Runs `f` with grad mode set to `on`, restoring it afterwards.
pub fn with_grad_mode<R>(on: bool, f: impl FnOnce() -> R) -> R {
    let prev = set_grad_enabled(on);
    let r = f();
    set_grad_enabled(prev);
    r
}

/// A view of `base` at `layout` whose history could not be made: its node raises `e` when
/// backward reaches it, so the view never keeps the history from before the write.
fn failing_view(base: &Tensor, layout: &crate::shape::Layout, e: crate::error::Error) -> Tensor {
    let mut y = base.with_layout_pub(layout.clone());
    record("AsStridedBackward0", &[base], &[], &mut [&mut y], Box::new(move |_| Err(e.clone())));
    y
}

impl Tensor {
    /// This tensor's history; for a view whose storage was written since its history was made
    /// (through another view, or its base), first the base's new history seen through the view.
    pub(crate) fn history(&self) -> Option<Rc<Meta>> {
        let slot = self.ag.get()?;
        if let Some(v) = &slot.view {
            let now = self.storage_version();
            if v.version.get() != now {
                v.version.set(now);
                if v.base.requires_grad() {
                    // A view op of a tensor that requires grad: recorded whatever the grad mode.
                    let h = with_grad_mode(true, || match ops::view_through(&v.base, &self.layout) {
                        Ok(h) => h,
                        Err(e) => failing_view(&v.base, &self.layout, e),
                    });
                    slot.meta.set(h.history());
                }
            }
        }
        let m = slot.meta.take();
        slot.meta.set(m.clone());
        m
    }

    /// This tensor's slot, made on first use (shared by its aliases from then on).
    pub(crate) fn slot(&self) -> &Rc<Slot> {
        self.ag.get_or_init(Default::default)
    }

    /// For a view: its base.
    pub(crate) fn view_base(&self) -> Option<&Tensor> {
        self.ag.get().and_then(|s| s.view_base())
    }

    pub fn requires_grad(&self) -> bool {
        self.history().is_some_and(|m| m.requires_grad.get())
    }

    pub fn grad_fn(&self) -> Option<Rc<Node>> {
        self.history().and_then(|m| m.grad_fn.clone())
    }

    /// PyTorch's `is_leaf`: not produced by a recorded op.
    pub fn is_leaf(&self) -> bool {
        self.grad_fn().is_none()
    }

    /// Makes `from`'s history this tensor's, as seen by every handle of it (an in-place op's
    /// result taking over the tensor it was written into).
    pub fn take_history(&self, from: &Tensor) {
        let h = from.history();
        self.slot().meta.set(h);
    }

    /// `t.requires_grad_(flag)`: only floating-point leaves.
    pub fn set_requires_grad(&mut self, flag: bool) -> Result<()> {
        if !self.is_leaf() {
            if !flag {
                bail!(
                    Torch,
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
                );
            }
            return Ok(());
        }
        if flag && !self.dtype.is_float() {
            bail!(DType, "only Tensors of floating point and complex dtype can require gradients");
        }
        self.meta().requires_grad.set(flag);
        Ok(())
    }

    /// This tensor's autograd state, created on first use.
    fn meta(&mut self) -> Rc<Meta> {
        let slot = self.slot();
        let m = slot.meta.take().unwrap_or_default();
        slot.meta.set(Some(m.clone()));
        m
    }

    /// `.grad`.
    pub fn grad(&self) -> Option<Tensor> {
        self.history().and_then(|m| m.grad.borrow().clone())
    }

    pub fn set_grad(&mut self, g: Option<Tensor>) -> Result<()> {
        if let Some(g) = &g {
            if g.shape() != self.shape() {
                bail!(
                    Shape,
                    "attempting to assign a gradient of size '{:?}' to a tensor of size '{:?}'. Please ensure that the gradient and the tensor are the same size",
                    g.shape(),
                    self.shape()
                );
            }
        }
        *self.meta().grad.borrow_mut() = g;
        Ok(())
    }

    /// `t.retain_grad()`: a non-leaf keeps its `.grad` after backward.
    pub fn retain_grad(&mut self) -> Result<()> {
        if !self.requires_grad() {
            bail!(Torch, "can't retain_grad on Tensor that has requires_grad=False");
        }
        self.meta().retains_grad.set(true);
        Ok(())
    }

    pub fn retains_grad(&self) -> bool {
        self.history().is_some_and(|m| m.retains_grad.get())
    }

    /// `t.register_hook(fn)`.
    pub fn register_hook(&mut self, hook: Hook) -> Result<()> {
        if !self.requires_grad() {
            bail!(Torch, "cannot register a hook on a tensor that doesn't require gradient");
        }
        self.meta().hooks.borrow_mut().push(hook);
        Ok(())
    }

    /// `t.detach()`: the same storage, outside the graph.
    pub fn detach(&self) -> Tensor {
        let mut t = self.clone();
        t.ag = Default::default();
        t
    }

    /// Where this tensor's gradient should be sent, if it takes part in the graph.
    fn edge(&self) -> Option<Edge> {
        let m = self.history()?;
        match &m.grad_fn {
            Some(f) => Some(Edge::Node(f.clone(), m.output_nr)),
            None if m.requires_grad.get() => Some(Edge::Leaf(m.clone())),
            None => None,
        }
    }
}

/// Whether an op on `inputs` must be recorded.
pub fn needs_grad(inputs: &[&Tensor]) -> bool {
    is_grad_enabled() && inputs.iter().any(|t| t.requires_grad())
}

/// Makes `outputs` the results of a new node `name` over `inputs` (when grad is needed).
/// `saved` are the inputs whose values the backward closure reads: an in-place write to one of
/// them before backward is an error, as in PyTorch.
pub fn record(name: &str, inputs: &[&Tensor], saved: &[&Tensor], outputs: &mut [&mut Tensor], backward: Backward) {
    if !needs_grad(inputs) {
        return;
    }
    let node = Rc::new(Node {
        name: name.to_string(),
        next: inputs.iter().map(|t| t.edge()).collect(),
        n_outputs: outputs.len(),
        backward: RefCell::new(Some(backward)),
        saved: saved.iter().map(|t| ((*t).clone(), t.version())).collect(),
        outputs: RefCell::new(vec![]),
    });
    for (i, out) in outputs.iter_mut().enumerate() {
        if !out.dtype.is_float() {
            continue; // integer and bool results are not differentiable
        }
        let m = Rc::new(Meta {
            requires_grad: Cell::new(true),
            grad_fn: Some(node.clone()),
            output_nr: i,
            ..Default::default()
        });
        node.outputs.borrow_mut().push(Rc::downgrade(&m));
        let slot = match out.ag.get() {
            Some(s) => s.with_meta(m),
            None => Slot::of(Some(m)),
        };
        out.ag = Rc::new(slot).into();
    }
}

fn add_grads(a: Option<Tensor>, b: Tensor) -> Result<Tensor> {
    match a {
        None => Ok(b),
        Some(a) => ops::add(&a, &b),
    }
}

/// Runs a tensor's hooks on its gradient.
fn run_hooks(meta: &Meta, mut g: Tensor) -> Result<Tensor> {
    let hooks = meta.hooks.borrow().clone();
    for h in hooks {
        if let Some(new) = h(&g)? {
            g = new;
        }
    }
    Ok(g)
}

/// What a backward pass does with gradients that reach a tensor: accumulate into `.grad`
/// (`backward`) or hand them back (`autograd.grad`).
enum Sink {
    Accumulate,
    Capture(Vec<Edge>),
}

fn node_key(n: &Rc<Node>) -> usize {
    Rc::as_ptr(n) as usize
}

fn meta_key(m: &Rc<Meta>) -> usize {
    Rc::as_ptr(m) as usize
}

/// The engine: topological order over the nodes reachable from `roots`, each node run once
/// with the sum of the gradients of its outputs.
/// Where a captured gradient arrived: a leaf's state, or output `i` of a node.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Target {
    Leaf(usize),
    Output(usize, usize),
}

impl Edge {
    fn target(&self) -> Target {
        match self {
            Edge::Leaf(m) => Target::Leaf(meta_key(m)),
            Edge::Node(n, i) => Target::Output(node_key(n), *i),
        }
    }
}

fn run(
    roots: Vec<(Edge, Tensor)>,
    retain_graph: bool,
    create_graph: bool,
    sink: &Sink,
) -> Result<HashMap<Target, Tensor>> {
    let mut captured: HashMap<Target, Tensor> = HashMap::new();
    let captures: Vec<Target> = match sink {
        Sink::Capture(edges) => edges.iter().map(Edge::target).collect(),
        Sink::Accumulate => vec![],
    };
    // Count how many edges lead into each node, over the reachable graph.
    let mut deps: HashMap<usize, usize> = HashMap::new();
    let mut nodes: HashMap<usize, Rc<Node>> = HashMap::new();
    let mut stack: Vec<Rc<Node>> = vec![];
    for (e, _) in &roots {
        if let Edge::Node(n, _) = e {
            if nodes.insert(node_key(n), n.clone()).is_none() {
                stack.push(n.clone());
            }
        }
    }
    while let Some(n) = stack.pop() {
        for e in n.next.iter().flatten() {
            if let Edge::Node(m, _) = e {
                *deps.entry(node_key(m)).or_default() += 1;
                if nodes.insert(node_key(m), m.clone()).is_none() {
                    stack.push(m.clone());
                }
            }
        }
    }
    let mut grads: HashMap<usize, Vec<Option<Tensor>>> = HashMap::new();
    let deliver = |grads: &mut HashMap<usize, Vec<Option<Tensor>>>,
                   captured: &mut HashMap<Target, Tensor>,
                   edge: &Edge,
                   g: Tensor|
     -> Result<()> {
        match edge {
            Edge::Node(n, i) => {
                let slot = grads.entry(node_key(n)).or_insert_with(|| vec![None; n.n_outputs]);
                slot[*i] = Some(add_grads(slot[*i].take(), g)?);
            }
            Edge::Leaf(m) => {
                let g = run_hooks(m, g)?;
                match sink {
                    Sink::Accumulate => {
                        let prev = {
                            let mut slot = m.grad.borrow_mut();
                            crate::debug::fault_point("autograd.backward");
                            slot.take()
                        };
                        // Without create_graph the accumulated grad is a plain tensor.
                        let sum = match prev {
                            Some(p) => ops::add(&p, &g)?,
                            None => g,
                        };
                        *m.grad.borrow_mut() = Some(if create_graph { sum } else { sum.detach() });
                    }
                    Sink::Capture(_) => {
                        let k = Target::Leaf(meta_key(m));
                        let prev = captured.remove(&k);
                        captured.insert(k, add_grads(prev, g)?);
                    }
                }
            }
        }
        Ok(())
    };
    let mut ready: Vec<Rc<Node>> = vec![];
    for (e, g) in roots {
        deliver(&mut grads, &mut captured, &e, g)?;
    }
    for n in nodes.values() {
        if deps.get(&node_key(n)).copied().unwrap_or(0) == 0 {
            ready.push(n.clone());
        }
    }
    while let Some(n) = ready.pop() {
        let key = node_key(&n);
        let mut out_grads = grads.remove(&key).unwrap_or_else(|| vec![None; n.n_outputs]);
        // Hooks and retain_grad of the tensors this node produced.
        for w in n.outputs.borrow().iter() {
            if let Some(m) = w.upgrade() {
                if let Some(g) = out_grads[m.output_nr].take() {
                    let g = run_hooks(&m, g)?;
                    if m.retains_grad.get() {
                        let prev = m.grad.borrow_mut().take();
                        *m.grad.borrow_mut() = Some(add_grads(prev, g.detach())?);
                    }
                    out_grads[m.output_nr] = Some(g);
                }
            }
        }
        for (i, g) in out_grads.iter().enumerate() {
            if let Some(g) = g {
                if captures.contains(&Target::Output(key, i)) {
                    captured.insert(Target::Output(key, i), g.clone());
                }
            }
        }
        for (t, v) in &n.saved {
            if t.version() != *v {
                let what = match t.grad_fn() {
                    Some(f) => format!(", which is output {} of {},", t.history().map_or(0, |m| m.output_nr), f.name),
                    None => String::new(),
                };
                bail!(
                    Torch,
                    "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.{}Tensor {}]{what} is at version {}; expected version {v} instead. Hint: the backtrace further above shows the operation that failed to compute its gradient. The variable in question was changed in there or anywhere later. Good luck!",
                    t.dtype.scalar_name(),
                    crate::shape::fmt_shape(t.shape()),
                    t.version()
                );
            }
        }
        let in_grads = if out_grads.iter().any(|g| g.is_some()) {
            let f = n.backward.borrow_mut().take();
            let Some(f) = f else {
                bail!(
                    Torch,
                    "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward."
                );
            };
            let r = with_grad_mode(create_graph, || f(&out_grads));
            if retain_graph {
                *n.backward.borrow_mut() = Some(f);
            }
            r?
        } else {
            vec![None; n.next.len()]
        };
        if in_grads.len() != n.next.len() {
            bail!(Torch, "{} returned {} gradients for {} inputs", n.name, in_grads.len(), n.next.len());
        }
        for (edge, g) in n.next.iter().zip(in_grads) {
            if let (Some(edge), Some(g)) = (edge, g) {
                deliver(&mut grads, &mut captured, edge, g)?;
            }
            if let Some(Edge::Node(m, _)) = edge {
                let d = deps.get_mut(&node_key(m)).expect("counted");
                *d -= 1;
                if *d == 0 {
                    ready.push(m.clone());
                }
            }
        }
    }
    Ok(captured)
}

/// `t.backward(gradient, retain_graph, create_graph)`.
pub fn backward(t: &Tensor, gradient: Option<Tensor>, retain_graph: bool, create_graph: bool) -> Result<()> {
    let Some(edge) = t.edge() else {
        bail!(Torch, "element 0 of tensors does not require grad and does not have a grad_fn");
    };
    let g = match gradient {
        Some(g) => {
            if g.shape() != t.shape() {
                bail!(
                    Shape,
                    "Mismatch in shape: grad_output[0] has a shape of {} and output[0] has a shape of {}.",
                    crate::shape::fmt_shape(g.shape()),
                    crate::shape::fmt_shape(t.shape())
                );
            }
            g
        }
        None => {
            if t.numel() != 1 {
                bail!(Torch, "grad can be implicitly created only for scalar outputs");
            }
            Tensor::full(t.shape(), 1.0, t.dtype, t.device())?
        }
    };
    run(vec![(edge, g)], retain_graph, create_graph, &Sink::Accumulate)?;
    Ok(())
}

/// `torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)`.
pub fn grad(
    outputs: &[Tensor],
    inputs: &[Tensor],
    grad_outputs: &[Option<Tensor>],
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    let mut roots = vec![];
    for (i, o) in outputs.iter().enumerate() {
        let Some(edge) = o.edge() else {
            bail!(Torch, "element {i} of tensors does not require grad and does not have a grad_fn");
        };
        let g = match grad_outputs.get(i).cloned().flatten() {
            Some(g) => g,
            None if o.numel() == 1 => Tensor::full(o.shape(), 1.0, o.dtype, o.device())?,
            None => bail!(Torch, "grad can be implicitly created only for scalar outputs"),
        };
        roots.push((edge, g));
    }
    let mut edges = vec![];
    for (i, x) in inputs.iter().enumerate() {
        match x.edge() {
            Some(e) => edges.push(e),
            None => bail!(Torch, "One of the differentiated Tensors (input {i}) does not require grad"),
        }
    }
    let captured = run(roots, retain_graph, create_graph, &Sink::Capture(edges.clone()))?;
    let mut out = vec![];
    for (i, e) in edges.iter().enumerate() {
        match captured.get(&e.target()) {
            Some(g) => out.push(Some(if create_graph { g.clone() } else { g.detach() })),
            None if allow_unused => out.push(None),
            None => bail!(
                Torch,
                "One of the differentiated Tensors (input {i}) appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
            ),
        }
    }
    Ok(out)
}

/// Grad of a non-differentiable output position.
pub fn no_grad_error(name: &str) -> crate::Error {
    err!(Torch, "the derivative for '{name}' is not implemented.")
}

/// PyTorch's refusal of an in-place op on a leaf that requires grad, or on a view of one (the
/// write would change the leaf behind autograd's back), checked before the op is computed (so
/// that it wins over the op's own errors, as in PyTorch).
pub fn check_inplace(x: &Tensor) -> Result<()> {
    if !is_grad_enabled() {
        return Ok(());
    }
    if x.requires_grad() && x.is_leaf() {
        bail!(Torch, "a leaf Variable that requires grad is being used in an in-place operation.");
    }
    let Some(view) = x.ag.get().and_then(|s| s.view.as_ref()) else { return Ok(()) };
    if view.base.requires_grad() && view.base.is_leaf() {
        bail!(Torch, "a view of a leaf Variable that requires grad is being used in an in-place operation.");
    }
    if let Some(m) = view.multi.get().filter(|_| view.tracked && view.base.requires_grad()) {
        bail!(Torch, "Output {} of {} is a view and is being modified inplace. {MULTI_OUTPUT}", m.index, m.name);
    }
    if !view.tracked && view.base.requires_grad() {
        bail!(
            Torch,
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
        );
    }
    Ok(())
}

const MULTI_OUTPUT: &str = "This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one.";

/// Marks `x`, a fresh view, as output `index` of the multi-output view function `name`.
pub fn mark_multi_output(x: &Tensor, name: &'static str, index: usize) {
    if let Some(view) = x.slot().view.as_ref() {
        view.multi.set(Some(MultiOutput { name, index }));
    }
}

/// An in-place view op (`t_`, `transpose_`, `squeeze_`, `unsqueeze_`, `as_strided_`): `x` takes
/// the layout of `view`, the op's functional form applied to `x`, and, where autograd recorded
/// that op, its history (a leaf changed under `no_grad` stays the leaf it was). The storage's
/// version moves on, as PyTorch's in-place ops move it. `check_inplace(x)` runs first.
pub fn set_view(x: &mut Tensor, view: &Tensor) {
    // Read before the version moves: a view whose version is behind takes its base's history.
    let recorded = view.history().filter(|m| m.grad_fn.is_some());
    x.layout = view.layout.clone();
    x.mark_written();
    let Some(h) = recorded else { return };
    x.slot().meta.set(Some(h));
    if let Some(v) = x.ag.get().and_then(|s| s.view.as_ref()) {
        v.version.set(x.storage_version());
    }
}

/// `assign` of a value nothing else holds (an in-place op's own result, moved in): its pending
/// expression runs straight into `x`'s new storage (`Tensor::assign_owned_`).
pub fn assign_owned(x: &mut Tensor, value: Tensor) -> Result<()> {
    check_inplace(x)?;
    let history = history_after_write(x, &value)?;
    x.assign_owned_(value)?;
    history.apply(x);
    Ok(())
}

/// An in-place op at the autograd level: `value` (computed from `x` by differentiable ops) is
/// written into `x`, and `x` takes over `value`'s place in the graph.
pub fn assign(x: &mut Tensor, value: &Tensor) -> Result<()> {
    check_inplace(x)?;
    let history = history_after_write(x, value)?;
    x.assign_(value)?;
    history.apply(x);
    Ok(())
}

/// The history a write gives (made before the write, applied once it succeeded; made before it
/// so that the write can still move a value nothing else holds).
enum Rewrite {
    Unchanged,
    /// `x`'s own.
    Whole(Option<Rc<Meta>>),
    /// `x`'s base's.
    Base(Option<Rc<Meta>>),
}

impl Rewrite {
    fn apply(self, x: &Tensor) {
        match self {
            Rewrite::Unchanged => {}
            Rewrite::Whole(h) => x.slot().meta.set(h),
            Rewrite::Base(h) => {
                if let Some(base) = x.view_base() {
                    base.slot().meta.set(h);
                }
                // The write moved the version on: `x` (and every other view of the base) takes
                // the base's new history through its view when next used.
                x.history();
            }
        }
    }
}

/// The history after `value` (of `x`'s shape) is written into `x`: `x` takes `value`'s; where `x`
/// is a view, its base's becomes the base's old history outside the view's elements and
/// `value`'s inside (PyTorch's CopySlices), and `x`'s is the base's new one seen through the view.
fn history_after_write(x: &Tensor, value: &Tensor) -> Result<Rewrite> {
    if !is_grad_enabled() {
        return Ok(Rewrite::Unchanged);
    }
    let Some(base) = x.view_base() else {
        return Ok(if value.requires_grad() { Rewrite::Whole(value.history()) } else { Rewrite::Unchanged });
    };
    if !(value.requires_grad() || base.requires_grad()) {
        return Ok(Rewrite::Unchanged);
    }
    // A piece of a base that needs no grad, written with a value that does (PyTorch's wording).
    if x.ag.get().and_then(|s| s.view.as_ref()).is_some_and(|v| v.multi.get().is_some()) {
        bail!(
            Torch,
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled. {MULTI_OUTPUT}"
        );
    }
    Ok(Rewrite::Base(ops::copy_slices(base, &x.layout, value)?.history()))
}
