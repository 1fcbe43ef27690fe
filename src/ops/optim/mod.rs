//! Fused optimizer steps (`torch.optim`, docs/nn.md "Fused steps"): one call per parameter
//! group updates every parameter, with one kernel dispatch per run of parameters that share
//! their step count (one, unless some parameters had no gradient on some steps).
//!
//! Why copies into one flat buffer: a WebGPU kernel binds at most 8–10 storage buffers, so a
//! kernel reading each parameter, gradient and state tensor in place would cover one or two
//! parameters (Adam: 4 buffers each). Instead the group's state (exp_avg, exp_avg_sq, …) lives
//! in one flat float32 tensor (float64 for a group of float64 parameters, CPU-only, updated in
//! f64), each parameter's state a view of it (so `state_dict` keeps
//! PyTorch's per-parameter layout with no copy); parameters and gradients are gathered into a
//! pooled `[params | grads]` buffer with buffer-to-buffer copies (commands, not dispatches), one
//! update kernel runs over it, and the parameters are copied back. The parameters keep their
//! own buffers, so nothing else in the engine (views, autograd, `load_state_dict`) changes.
//!
//! Hyperparameters come from the TS layer as numbers in the order of [`hyper_names`]; step
//! counts and the other per-parameter scalars (NAdam's `mu_product`, ASGD's `eta`/`mu`) live
//! here, so a step is one call and `torch.compile` can replay it. Scalars passed to the kernel
//! (`OptimStep::scalars`), by kind:
//! - SGD: wd, lr, momentum, 1 - dampening
//! - Adam: wd, 1 - lr·wd, 1 - β1, β2, 1 - β2, √bc2, eps, -lr/bc1
//! - RMSprop: wd, lr, alpha, 1 - alpha, eps, momentum
//! - Adagrad: wd, eps, -clr
//! - Adamax: wd, 1 - β1, β2, eps, -clr
//! - NAdam: wd, 1 - lr·wd, 1 - β1, β2, 1 - β2, bc2, eps, grad coefficient, exp_avg coefficient
//! - RAdam: wd, 1 - lr·wd, 1 - β1, β2, 1 - β2, bc1, lr, eps, √bc2, rect
//! - ASGD: wd, 1 - λ·eta, -eta, mu
//! - Adadelta: wd, rho, 1 - rho, eps, -lr
//! - Rprop: 0, eta-, eta+, min step, max step, lr
//!
//! The family: this file holds the groups and their rules (the entry); `step.rs` the update
//! kernel's description, program and dispatch; `optim.wgsl` its WGSL and `cpu.rs` its CPU twin.

use std::rc::Rc;

mod cpu;
pub mod step;

pub use step::{
    OptimKind, OptimStep, OPT_AMSGRAD, OPT_BRANCH, OPT_CENTERED, OPT_DECOUPLED, OPT_FIRST, OPT_MAXIMIZE, OPT_MOMENTUM,
    OPT_NESTEROV, OPT_WEIGHT_DECAY,
};

use crate::backend::Backend;
use crate::dtype::DType;
use crate::error::Result;
use crate::shape::{contiguous_strides, Layout};
use crate::tensor::Tensor;
use crate::{bail, Device};

impl OptimKind {
    /// The torch.optim class name.
    pub fn from_name(name: &str) -> Result<OptimKind> {
        Ok(match name {
            "SGD" => OptimKind::Sgd,
            "Adam" | "AdamW" => OptimKind::Adam,
            "RMSprop" => OptimKind::RmsProp,
            "Adagrad" => OptimKind::Adagrad,
            "Adamax" => OptimKind::Adamax,
            "NAdam" => OptimKind::NAdam,
            "RAdam" => OptimKind::RAdam,
            "ASGD" => OptimKind::Asgd,
            "Adadelta" => OptimKind::Adadelta,
            "Rprop" => OptimKind::Rprop,
            _ => bail!(Torch, "no fused step for optimizer '{name}'"),
        })
    }
}

/// The hyperparameters `Group::step` takes, in order (`betas.0` is `group.betas[0]`; flags are
/// 0 or 1).
pub fn hyper_names(kind: OptimKind) -> &'static [&'static str] {
    match kind {
        OptimKind::Sgd => &["lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize"],
        OptimKind::Adam => {
            &["lr", "betas.0", "betas.1", "eps", "weight_decay", "amsgrad", "maximize", "decoupled_weight_decay"]
        }
        OptimKind::RmsProp => &["lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize"],
        OptimKind::Adagrad => &["lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps", "maximize"],
        OptimKind::Adamax => &["lr", "betas.0", "betas.1", "eps", "weight_decay", "maximize"],
        OptimKind::NAdam => {
            &["lr", "betas.0", "betas.1", "eps", "weight_decay", "momentum_decay", "decoupled_weight_decay", "maximize"]
        }
        OptimKind::RAdam => &["lr", "betas.0", "betas.1", "eps", "weight_decay", "decoupled_weight_decay", "maximize"],
        OptimKind::Asgd => &["lr", "lambd", "alpha", "t0", "weight_decay", "maximize"],
        OptimKind::Adadelta => &["lr", "rho", "eps", "weight_decay", "maximize"],
        OptimKind::Rprop => &["lr", "etas.0", "etas.1", "step_sizes.0", "step_sizes.1", "maximize"],
    }
}

/// The state tensors of each kind, in kernel role order (`OptimStep::bases`), and whether the
/// options `h` use each one.
fn roles(kind: OptimKind, h: &[f64]) -> Vec<(&'static str, bool)> {
    match kind {
        OptimKind::Sgd => vec![("momentum_buffer", h[1] != 0.0)],
        OptimKind::Adam => vec![("exp_avg", true), ("exp_avg_sq", true), ("max_exp_avg_sq", h[5] != 0.0)],
        OptimKind::RmsProp => vec![("square_avg", true), ("momentum_buffer", h[4] > 0.0), ("grad_avg", h[5] != 0.0)],
        OptimKind::Adagrad => vec![("sum", true)],
        OptimKind::Adamax => vec![("exp_avg", true), ("exp_inf", true)],
        OptimKind::NAdam | OptimKind::RAdam => vec![("exp_avg", true), ("exp_avg_sq", true)],
        OptimKind::Asgd => vec![("ax", true)],
        OptimKind::Adadelta => vec![("square_avg", true), ("acc_delta", true)],
        OptimKind::Rprop => vec![("prev", true), ("step_size", true)],
    }
}

/// The scalar state of one parameter (PyTorch keeps these in float32 tensors, except `step`
/// for SGD, which has none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamScalars {
    /// The parameter has state (it had a gradient at some step, or the optimizer made state up
    /// front, as Adagrad does).
    pub initialized: bool,
    pub step: f64,
    /// NAdam.
    pub mu_product: f32,
    /// ASGD.
    pub eta: f32,
    pub mu: f32,
}

/// One parameter group's fused step: its parameters, their flat state and scalar state.
pub struct Group {
    kind: OptimKind,
    params: Vec<Tensor>,
    offsets: Vec<usize>,
    n: usize,
    device: Device,
    /// The flat float32 state (`slots.len()` segments of `n`), once a step or a load made it.
    state: Option<Tensor>,
    slots: Vec<&'static str>,
    scalars: Vec<ParamScalars>,
}

impl Group {
    /// A group over `params` (all on one device); `hyper` as [`hyper_names`] orders them.
    pub fn new(kind: OptimKind, params: Vec<Tensor>, hyper: &[f64]) -> Result<Group> {
        check_hyper(kind, hyper)?;
        let device = params.first().map_or(crate::engine::default_device(), Tensor::device);
        let mut offsets = Vec::with_capacity(params.len());
        let mut n = 0;
        for p in &params {
            if p.device() != device {
                bail!(
                    Device,
                    "a parameter group's tensors must be on one device (found {} and {})",
                    device.name(),
                    p.device().name()
                );
            }
            if (p.dtype == DType::Float64) != (params[0].dtype == DType::Float64) {
                bail!(
                    DType,
                    "a fused optimizer step updates a parameter group of float64 parameters or of none: put the \
                     float64 parameters in a group of their own"
                );
            }
            if !p.dtype.is_float() {
                bail!(DType, "optimizers update floating point parameters, got {}", p.dtype.name());
            }
            offsets.push(n);
            n += p.numel();
        }
        let fresh = ParamScalars { initialized: false, step: 0.0, mu_product: 1.0, eta: hyper[0] as f32, mu: 1.0 };
        let mut g =
            Group { kind, scalars: vec![fresh; params.len()], params, offsets, n, device, state: None, slots: vec![] };
        if kind == OptimKind::Adagrad {
            // PyTorch makes Adagrad's accumulators in the constructor.
            g.ensure_state(hyper)?;
            for s in &mut g.scalars {
                s.initialized = true;
            }
        }
        Ok(g)
    }

    pub fn len(&self) -> usize {
        self.params.len()
    }

    pub fn is_empty(&self) -> bool {
        self.params.is_empty()
    }

    /// The names of the state tensors (empty before the state exists).
    pub fn slots(&self) -> &[&'static str] {
        &self.slots
    }

    pub fn scalars(&self, i: usize) -> Option<ParamScalars> {
        self.scalars.get(i).copied()
    }

    pub fn set_scalars(&mut self, i: usize, s: ParamScalars) -> Result<()> {
        match self.scalars.get_mut(i) {
            Some(slot) => *slot = s,
            None => bail!(Index, "parameter {i} is out of range for a group of {}", self.params.len()),
        }
        Ok(())
    }

    /// Makes the flat state for options `hyper` (zeros; Adagrad's initial accumulator value).
    pub fn ensure_state(&mut self, hyper: &[f64]) -> Result<()> {
        check_hyper(self.kind, hyper)?;
        let want: Vec<&'static str> = roles(self.kind, hyper).into_iter().filter(|r| r.1).map(|r| r.0).collect();
        if self.state.is_some() {
            if let Some(missing) = want.iter().find(|w| !self.slots.contains(w)) {
                bail!(
                    Torch,
                    "the optimizer's options changed after its state was made: '{missing}' is needed now; make a new optimizer"
                );
            }
            return Ok(());
        }
        let init = if self.kind == OptimKind::Adagrad { hyper[3] } else { 0.0 };
        let words = (want.len() * self.n).max(1);
        let state = Tensor::full(&[words], init, self.dtype(), self.device)?;
        state.materialize()?;
        self.state = Some(state);
        self.slots = want;
        Ok(())
    }

    /// State tensor `slot` of parameter `i`: a view of the flat state shaped like the parameter.
    pub fn state_view(&self, i: usize, slot: usize) -> Option<Tensor> {
        let state = self.state.as_ref()?;
        let p = self.params.get(i)?;
        if slot >= self.slots.len() {
            return None;
        }
        let shape = p.shape().to_vec();
        let strides = contiguous_strides(&shape);
        Some(state.with_layout(Layout { shape, strides, offset: slot * self.n + self.offsets[i] }))
    }

    /// One step over every parameter that has a gradient (`hyper` as [`hyper_names`] orders).
    pub fn step(&mut self, hyper: &[f64]) -> Result<()> {
        check_hyper(self.kind, hyper)?;
        let grads: Vec<Option<Tensor>> = self.params.iter().map(Tensor::grad).collect();
        if grads.iter().all(Option::is_none) {
            return Ok(());
        }
        for (p, g) in self.params.iter().zip(&grads) {
            if let Some(g) = g {
                if g.device() != self.device {
                    bail!(Device, "a parameter on {} has a gradient on {}", self.device.name(), g.device().name());
                }
                if g.shape() != p.shape() {
                    bail!(Shape, "a gradient's shape {:?} differs from its parameter's {:?}", g.shape(), p.shape());
                }
            }
        }
        self.ensure_state(hyper)?;
        let state = self.state.clone().expect("state made above");
        let backend: Rc<dyn Backend> = state.backend().clone();
        if let Some(graphs) = backend.graphs().filter(|g| g.capturing()) {
            if let Some(why) = self.capture_refusal(hyper, &grads) {
                graphs.capture_refuse(&why);
            }
        }
        // The kernel writes the parameters and the state: expressions still reading their old
        // values are computed first.
        state.prepare_write()?;
        for (p, g) in self.params.iter().zip(&grads) {
            if g.is_some() {
                p.prepare_write()?;
            }
        }
        let x = Tensor::empty(&[2 * self.n.max(1)], self.dtype(), self.device)?;
        let xb = x.buf()?;
        for (i, (p, g)) in self.params.iter().zip(&grads).enumerate() {
            if let Some(g) = g {
                gather(&backend, p, self.dtype(), xb, self.offsets[i])?;
                gather(&backend, g, self.dtype(), xb, self.n + self.offsets[i])?;
            }
        }
        let bases = self.bases(hyper);
        let sb = state.buf()?;
        let mut i = 0;
        while i < self.params.len() {
            if grads[i].is_none() {
                i += 1;
                continue;
            }
            // A run: consecutive parameters with gradients and equal scalar state.
            let before = self.scalars[i];
            let mut j = i + 1;
            while j < self.params.len() && grads[j].is_some() && self.scalars[j] == before {
                j += 1;
            }
            let (after, flags, scalars) = self.update_scalars(hyper, before);
            let start = self.offsets[i];
            let end = self.offsets.get(j).copied().unwrap_or(self.n);
            if end > start {
                step::run(
                    &*backend,
                    &OptimStep {
                        kind: self.kind,
                        flags,
                        x: xb,
                        state: sb,
                        n: self.n,
                        start,
                        len: end - start,
                        bases,
                        scalars,
                        float64: self.dtype() == DType::Float64,
                    },
                )?;
            }
            for s in &mut self.scalars[i..j] {
                *s = after;
            }
            i = j;
        }
        for (i, (p, g)) in self.params.iter().zip(&grads).enumerate() {
            if g.is_some() {
                scatter(&backend, &x, p, self.offsets[i])?;
                p.mark_written();
            }
        }
        state.mark_written();
        Ok(())
    }

    /// A kernel-graph capture (`torch.compile`) replays the recorded copies and dispatch with
    /// their scalars as they were: only a step whose scalars stay the same from step to step can
    /// be captured — SGD past its first step (the others' bias corrections and step counts
    /// change every step, and would not move on in a replay). Else, why not (the step itself
    /// runs as usual; the capture falls back).
    fn capture_refusal(&self, hyper: &[f64], grads: &[Option<Tensor>]) -> Option<String> {
        let fresh = self.scalars.iter().zip(grads).any(|(s, g)| g.is_some() && !s.initialized);
        (self.kind != OptimKind::Sgd || (fresh && hyper[1] != 0.0))
            .then(|| format!("the optimizer step ({:?}) changes its scalars every step", self.kind))
    }

    /// Word offsets of each kernel role in the flat state (0 for roles the options leave out).
    fn bases(&self, hyper: &[f64]) -> [usize; 3] {
        let mut bases = [0; 3];
        for (r, (name, _)) in roles(self.kind, hyper).iter().enumerate().take(3) {
            if let Some(k) = self.slots.iter().position(|s| s == name) {
                bases[r] = k * self.n;
            }
        }
        bases
    }

    /// The dtype of the group's flat buffers and state: float64 for float64 parameters, else
    /// float32.
    fn dtype(&self) -> DType {
        match self.params.first() {
            Some(p) if p.dtype == DType::Float64 => DType::Float64,
            _ => DType::Float32,
        }
    }

    /// A run's scalar state after this step, and the kernel's flags and scalars (the update
    /// rounds them to f32 for a float32 group).
    fn update_scalars(&self, h: &[f64], s: ParamScalars) -> (ParamScalars, u32, Vec<f64>) {
        let mut after = ParamScalars { initialized: true, ..s };
        let step = s.step + 1.0;
        let lr = h[0];
        let on = |v: f64, f: u32| if v != 0.0 { f } else { 0 };
        let first = if s.initialized { 0 } else { OPT_FIRST };
        let (flags, c): (u32, Vec<f64>) = match self.kind {
            OptimKind::Sgd => {
                let flags = on(h[3], OPT_WEIGHT_DECAY) | on(h[1], OPT_MOMENTUM) | on(h[4], OPT_NESTEROV) | first;
                (flags | on(h[5], OPT_MAXIMIZE), vec![h[3], lr, h[1], 1.0 - h[2]])
            }
            OptimKind::Adam => {
                after.step = step;
                let (b1, b2, wd) = (h[1], h[2], h[4]);
                let bc1 = 1.0 - b1.powf(step);
                let bc2 = 1.0 - b2.powf(step);
                let flags = on(wd, OPT_WEIGHT_DECAY) | on(h[5], OPT_AMSGRAD) | on(h[6], OPT_MAXIMIZE);
                let c = vec![wd, 1.0 - lr * wd, 1.0 - b1, b2, 1.0 - b2, bc2.sqrt(), h[3], -lr / bc1];
                (flags | on(h[7], OPT_DECOUPLED), c)
            }
            OptimKind::RmsProp => {
                after.step = step;
                let flags = on(h[3], OPT_WEIGHT_DECAY) | on(h[6], OPT_MAXIMIZE) | on(h[5], OPT_CENTERED);
                let momentum = if h[4] > 0.0 { OPT_MOMENTUM } else { 0 };
                (flags | momentum, vec![h[3], lr, h[1], 1.0 - h[1], h[2], h[4]])
            }
            OptimKind::Adagrad => {
                after.step = step;
                let clr = lr / (1.0 + (step - 1.0) * h[1]);
                (on(h[2], OPT_WEIGHT_DECAY) | on(h[5], OPT_MAXIMIZE), vec![h[2], h[4], -clr])
            }
            OptimKind::Adamax => {
                after.step = step;
                let clr = lr / (1.0 - h[1].powf(step));
                (on(h[4], OPT_WEIGHT_DECAY) | on(h[5], OPT_MAXIMIZE), vec![h[4], 1.0 - h[1], h[2], h[3], -clr])
            }
            OptimKind::NAdam => {
                after.step = step;
                let (b1, b2, wd, decay) = (h[1], h[2], h[4], h[5]);
                let bc2 = 1.0 - b2.powf(step);
                let mu = b1 * (1.0 - 0.5 * 0.96f64.powf(step * decay));
                let mu_next = b1 * (1.0 - 0.5 * 0.96f64.powf((step + 1.0) * decay));
                // PyTorch keeps mu_product in a float32 tensor.
                let mu_product = s.mu_product * mu as f32;
                after.mu_product = mu_product;
                let mp = mu_product as f64;
                let a1 = -lr * (1.0 - mu) / (1.0 - mp);
                let a2 = -lr * mu_next / (1.0 - mp * mu_next);
                let flags = on(wd, OPT_WEIGHT_DECAY) | on(h[6], OPT_DECOUPLED) | on(h[7], OPT_MAXIMIZE);
                (flags, vec![wd, 1.0 - lr * wd, 1.0 - b1, b2, 1.0 - b2, bc2, h[3], a1, a2])
            }
            OptimKind::RAdam => {
                after.step = step;
                let (b1, b2, wd) = (h[1], h[2], h[4]);
                let bc1 = 1.0 - b1.powf(step);
                let bc2 = 1.0 - b2.powf(step);
                let rho_inf = 2.0 / (1.0 - b2) - 1.0;
                let rho_t = rho_inf - 2.0 * step * b2.powf(step) / bc2;
                let (branch, rect) = if rho_t > 5.0 {
                    let r =
                        ((rho_t - 4.0) * (rho_t - 2.0) * rho_inf / ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t)).sqrt();
                    (OPT_BRANCH, r)
                } else {
                    (0, 0.0)
                };
                let flags = on(wd, OPT_WEIGHT_DECAY) | on(h[5], OPT_DECOUPLED) | on(h[6], OPT_MAXIMIZE) | branch;
                (flags, vec![wd, 1.0 - lr * wd, 1.0 - b1, b2, 1.0 - b2, bc1, lr, h[3], bc2.sqrt(), rect])
            }
            OptimKind::Asgd => {
                after.step = step;
                let (lambd, alpha, t0, wd) = (h[1], h[2], h[3], h[4]);
                let (eta, mu) = if s.initialized { (s.eta as f64, s.mu as f64) } else { ((lr as f32) as f64, 1.0) };
                // PyTorch keeps eta and mu in float32 tensors.
                after.eta = (lr / (1.0 + lambd * lr * step).powf(alpha)) as f32;
                after.mu = (1.0 / (step - t0).max(1.0)) as f32;
                let flags = on(wd, OPT_WEIGHT_DECAY) | on(h[5], OPT_MAXIMIZE) | if mu != 1.0 { OPT_BRANCH } else { 0 };
                (flags, vec![wd, 1.0 - lambd * eta, -eta, mu])
            }
            OptimKind::Adadelta => {
                after.step = step;
                let flags = on(h[3], OPT_WEIGHT_DECAY) | on(h[4], OPT_MAXIMIZE);
                (flags, vec![h[3], h[1], 1.0 - h[1], h[2], -lr])
            }
            OptimKind::Rprop => {
                after.step = step;
                (on(h[5], OPT_MAXIMIZE) | first, vec![0.0, h[1], h[2], h[3], h[4], lr])
            }
        };
        (after, flags, c)
    }
}

fn check_hyper(kind: OptimKind, hyper: &[f64]) -> Result<()> {
    let want = hyper_names(kind).len();
    if hyper.len() != want {
        bail!(Torch, "{kind:?} takes {want} hyperparameters, got {}", hyper.len());
    }
    Ok(())
}

/// Copies `t`'s values (as `dtype`, the group's: float32 or float64) into `dst` from element
/// `at`: one copy command when `t` is a contiguous view of that dtype, else a converting kernel
/// first.
fn gather(backend: &Rc<dyn Backend>, t: &Tensor, dtype: DType, dst: u32, at: usize) -> Result<()> {
    if t.numel() == 0 {
        return Ok(());
    }
    let t = if t.dtype == dtype { t.contiguous()? } else { t.to_dtype(dtype)?.contiguous()? };
    let src = t.buf()?;
    let w = dtype.words();
    backend.copy(src, w * t.layout.offset, dst, w * at, w * t.numel())
}

/// Writes the updated values at element `at` of `x` back into parameter `p`: a copy command, or
/// a converting write for other float dtypes and strided parameters.
fn scatter(backend: &Rc<dyn Backend>, x: &Tensor, p: &Tensor, at: usize) -> Result<()> {
    if p.numel() == 0 {
        return Ok(());
    }
    if p.dtype == x.dtype && p.layout.is_contiguous() {
        let w = x.dtype.words();
        return backend.copy(x.buf()?, w * at, p.buf()?, w * p.layout.offset, w * p.numel());
    }
    let shape = p.shape().to_vec();
    let strides = contiguous_strides(&shape);
    p.assign_(&x.with_layout(Layout { shape, strides, offset: at }))
}
