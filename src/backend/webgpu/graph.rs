//! Captured kernel graphs for `torch.compile` (docs/compile.md): while a capture is open, every
//! dispatch is recorded — its pipeline, its meta words, the buffers it binds, its grid — and
//! every upload; buffers released meanwhile are kept (the graph owns them) instead of pooled, and
//! those the capture itself allocated are taken again by its later dispatches
//! (`Capture::take_spare`), as eager steps take pooled buffers. The finished graph has its own
//! uniform arena holding every dispatch's meta words, written once, and a pre-built bind group
//! per dispatch, so a replay encodes the recorded dispatches directly:
//! copies of the new inputs into the captured input buffers, the dispatches, the copy-backs that
//! return state to the buffers the next replay reads (none where the graph writes that state
//! itself: `write_back_in_place`), and copies of the outputs into fresh
//! buffers, all recorded into the open batch as eager dispatches are, with no op-by-op work in
//! the core. Buffer-to-buffer copies recorded between dispatches (a fused optimizer step's
//! gathers) replay in their place, between passes. Buffers a graph binds or copies are pinned:
//! released by their tensors later, they are not pooled while a graph may write them.
//!
//! Inputs and outputs are bound in place where that is safe, not copied: a replay binds the
//! caller's buffer where the graph only reads an input, and a fresh buffer where the first
//! dispatch to touch an output writes all of it (`KernelKey::writes_whole_output`), making those
//! dispatches' bind groups anew (one `createBindGroup` each). A single bandwidth-bound op had
//! cost three passes over its data (copy in, kernel, copy out) and ran at a fifth of eager's
//! speed (bench/KERNELS.md). Anything else — a buffer an upload, a recorded copy or a copy-back
//! touches, an input the graph writes, an output written in parts (a `cat`, a scatter) — is
//! copied as before, and so is an input whose buffer some graph pins (a parameter passed as an
//! input could otherwise be bound twice in one dispatch, once writable).

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::binding::slot_bind_group;
use super::{Kernel, State, WebGpuBackend, IDLE_FIRST, SLOT_BYTES, SLOT_WORDS};
use crate::backend::BufId;
use crate::error::Result;
use crate::{bail, err};

/// One recorded dispatch.
pub(super) struct Recorded {
    pub kernel: Rc<Kernel>,
    pub meta: Vec<u32>,
    pub buffers: Vec<wgpu::Buffer>,
    pub groups: (u32, u32, u32),
    /// How many of `buffers` (the first ones) the kernel writes.
    pub writable: usize,
    /// The kernel writes all of its first buffer's tensor, reading none of it first.
    pub writes_whole_output: bool,
}

/// One recorded copy command, made before dispatch `at` (after the last when `at` is their count).
pub(super) struct RecordedCopy {
    pub at: usize,
    pub src: wgpu::Buffer,
    pub src_bytes: u64,
    pub dst: wgpu::Buffer,
    pub dst_bytes: u64,
    pub bytes: u64,
}

/// A capture in progress.
#[derive(Default)]
pub(super) struct Capture {
    pub dispatches: Vec<Recorded>,
    pub copies: Vec<RecordedCopy>,
    /// Why the capture cannot be replayed (`capture_refuse`), if it cannot.
    pub refused: Option<String>,
    pub uploads: Vec<(wgpu::Buffer, Vec<u32>)>,
    /// Buffers released while capturing: their slots stay until the capture ends.
    pub released: Vec<BufId>,
    /// Slots allocated while capturing (the step's intermediates).
    pub fresh: FxHashSet<BufId>,
    /// Of those, the ones released again, by size class: later dispatches of the capture take
    /// them as eager dispatches take pooled buffers (`take_spare`).
    pub spare: FxHashMap<u64, Vec<BufId>>,
}

impl Capture {
    /// The slot of a buffer of `class` the capture allocated and released, for a later dispatch
    /// of the same capture to write (the slot, buffer and all, becomes the new tensor's): the
    /// graph then replays eager's reuse of buffers within a step. Without it every intermediate
    /// of a captured step kept its own buffer, a larger working set than the eager step's
    /// (bench/KERNELS.md, "Submits per tiny op, and the compiled block's gap"). Buffers that held
    /// state before the capture are never taken: the copy-backs return state to them by slot.
    pub(super) fn take_spare(&mut self, class: u64) -> Option<BufId> {
        let id = self.spare.get_mut(&class)?.pop()?;
        self.released.retain(|&r| r != id);
        Some(id)
    }
}

/// A dispatch of a graph: pipeline, pre-built bind group, grid.
type Step = (Rc<Kernel>, wgpu::BindGroup, (u32, u32, u32));

/// Whose buffer a replay binds in a slot of a dispatch it binds anew.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bound {
    Captured,
    /// The caller's buffer of input k (when this replay binds it in place).
    Input(usize),
    /// The replay's fresh buffer for output k.
    Output(usize),
}

/// A dispatch that reads an input or writes an output in place: its index, its buffers, and
/// the bind groups replays made for it by the buffers they bind (outputs come from the pool, so
/// the same buffers return: creating a bind group cost more than the rest of a short replay).
struct Rebind {
    step: usize,
    buffers: Vec<(wgpu::Buffer, Bound)>,
    made: FxHashMap<Vec<wgpu::Buffer>, wgpu::BindGroup>,
}

/// Bind groups a `Rebind` keeps (past it, it starts over): a timed loop that holds its results
/// until a wait cycles through hundreds of pooled outputs.
const MADE: usize = 1024;

pub(super) struct Graph {
    arena: wgpu::Buffer,
    steps: Vec<Step>,
    copies: Vec<RecordedCopy>,
    uploads: Vec<(wgpu::Buffer, Vec<u32>)>,
    /// Where each input is copied, how many bytes, and whether a replay may bind the caller's
    /// buffer instead.
    inputs: Vec<(wgpu::Buffer, u64, bool)>,
    copy_backs: Vec<(wgpu::Buffer, wgpu::Buffer, u64)>,
    /// Each output's buffer and bytes, and whether a replay binds a fresh buffer in its place
    /// (else copies it out).
    outputs: Vec<(wgpu::Buffer, u64, bool)>,
    rebinds: Vec<Rebind>,
    /// Buffers released during the capture (returned to the pool when the graph goes).
    owned: Vec<(wgpu::Buffer, u64)>,
    pinned: Vec<wgpu::Buffer>,
}

/// A buffer of a graph: its slot and how many bytes of it matter.
pub type Span = (BufId, u64);

impl WebGpuBackend {
    /// Opens a capture (work recorded before it is submitted first). False if one is open.
    pub fn capture_begin(&self) -> bool {
        let mut st = self.st.borrow_mut();
        if st.capture.is_some() {
            return false;
        }
        if st.encoder.is_some() {
            self.flush_locked(&mut st);
        }
        st.capture = Some(Capture::default());
        true
    }

    /// Closes the capture without a graph: buffers it kept are released.
    pub fn capture_abort(&self) {
        let cap = self.st.borrow_mut().capture.take();
        if let Some(cap) = cap {
            for id in cap.released {
                crate::backend::Backend::release(self, id);
            }
        }
    }

    /// Closes the capture into a graph whose replays take `inputs` (bound in place, or copied
    /// into these buffers), end with `copy_backs` (src → dst: state returned to the buffer the
    /// graph reads; `dst` becomes a live slot again if it was released during the capture) and
    /// give `outputs` in fresh buffers (written there, or copied). The copy-backs also run once
    /// now. Returns the graph's id.
    pub fn capture_end(&self, inputs: &[Span], outputs: &[Span], copy_backs: &[(BufId, BufId, u64)]) -> Result<u32> {
        let mut st = self.st.borrow_mut();
        // Tiny ops still waiting for their launch belong to the graph: recorded before it closes.
        if st.capture.is_some() {
            self.emit_batched(&mut st, false)?;
        }
        let mut cap = st.capture.take().ok_or_else(|| err!(Torch, "internal: no capture is open"))?;
        if st.encoder.is_some() {
            self.flush_locked(&mut st);
        }
        let buf = |st: &State, id: BufId| -> Result<wgpu::Buffer> {
            match st.bufs.get(id as usize).and_then(|b| b.as_ref()) {
                Some((b, _)) => Ok(b.clone()),
                None => bail!(Torch, "internal: buffer {id} of a graph is not live"),
            }
        };
        let revived: Vec<BufId> = copy_backs.iter().map(|c| c.1).collect();
        let inputs = inputs.iter().map(|&(id, n)| Ok((buf(&st, id)?, n))).collect::<Result<Vec<_>>>()?;
        let outputs = outputs.iter().map(|&(id, n)| Ok((buf(&st, id)?, n))).collect::<Result<Vec<_>>>()?;
        let copy_backs =
            copy_backs.iter().map(|&(s, d, n)| Ok((buf(&st, s)?, buf(&st, d)?, n))).collect::<Result<Vec<_>>>()?;
        // Copy-backs the graph can do by writing the state buffer itself (`write_back_in_place`).
        let in_graph: Vec<bool> = copy_backs
            .iter()
            .map(|(src, dst, _)| {
                let ok = write_back_in_place(&cap, src, dst, &inputs, &outputs, &copy_backs);
                if ok {
                    for b in cap.dispatches.iter_mut().flat_map(|d| d.buffers.iter_mut()) {
                        if b == src {
                            *b = dst.clone();
                        }
                    }
                }
                ok
            })
            .collect();
        // Slots released during the capture go; their buffers belong to the graph (except the
        // ones state storages point at again, and the sources of copy-backs done in place, which
        // no replay uses: pooled after the copy below).
        let mut owned = Vec::new();
        let mut unused = Vec::new();
        for &id in cap.released.iter().filter(|id| !revived.contains(id)) {
            if let Some((b, class)) = st.bufs[id as usize].take() {
                st.free_ids.push(id);
                st.stats.live_buffers -= 1;
                if copy_backs.iter().zip(&in_graph).any(|(c, &g)| g && c.0 == b) {
                    st.stats.active_bytes -= class;
                    unused.push((b, class));
                } else {
                    owned.push((b, class));
                }
            }
        }
        // What a replay binds in place (the module's doc says why and when).
        let elsewhere = |b: &wgpu::Buffer| {
            cap.uploads.iter().any(|u| &u.0 == b)
                || cap.copies.iter().any(|c| &c.src == b || &c.dst == b)
                || copy_backs.iter().any(|c| &c.0 == b || &c.1 == b)
        };
        let inputs: Vec<(wgpu::Buffer, u64, bool)> = inputs
            .into_iter()
            .map(|(b, n)| {
                let written = cap.dispatches.iter().any(|d| d.buffers.iter().take(d.writable).any(|x| *x == b));
                let bind = !written && !elsewhere(&b);
                (b, n, bind)
            })
            .collect();
        let outputs: Vec<(wgpu::Buffer, u64, bool)> = outputs
            .iter()
            .map(|(b, n)| {
                let first = cap.dispatches.iter().find(|d| d.buffers.contains(b));
                let bind = first.is_some_and(|d| d.writes_whole_output && d.buffers[0] == *b)
                    && outputs.iter().filter(|o| o.0 == *b).count() == 1
                    && !inputs.iter().any(|i| i.0 == *b)
                    && !elsewhere(b);
                (b.clone(), *n, bind)
            })
            .collect();
        let bound = |b: &wgpu::Buffer| {
            if let Some(k) = inputs.iter().position(|i| i.2 && i.0 == *b) {
                Bound::Input(k)
            } else if let Some(k) = outputs.iter().position(|o| o.2 && o.0 == *b) {
                Bound::Output(k)
            } else {
                Bound::Captured
            }
        };
        let mut rebinds = Vec::new();
        let n = cap.dispatches.len().max(1);
        let arena = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("webtorch:graph-arena"),
            size: n as u64 * SLOT_BYTES,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut words = vec![0u32; n * SLOT_WORDS];
        let mut steps = Vec::with_capacity(cap.dispatches.len());
        let mut pinned: Vec<wgpu::Buffer> = Vec::new();
        for (i, d) in cap.dispatches.into_iter().enumerate() {
            words[i * SLOT_WORDS..i * SLOT_WORDS + d.meta.len()].copy_from_slice(&d.meta);
            let bg = slot_bind_group(&self.device, &arena, &d.kernel.layout, i, d.buffers.iter());
            let slots: Vec<Bound> = d.buffers.iter().map(bound).collect();
            if slots.iter().any(|s| *s != Bound::Captured) {
                let buffers = d.buffers.iter().cloned().zip(slots).collect();
                rebinds.push(Rebind { step: i, buffers, made: FxHashMap::default() });
            }
            pinned.extend(d.buffers.iter().cloned());
            steps.push((d.kernel, bg, d.groups));
        }
        self.queue.write_buffer(&arena, 0, bytemuck::cast_slice(&words));
        pinned.extend(inputs.iter().map(|b| b.0.clone()));
        pinned.extend(outputs.iter().map(|b| b.0.clone()));
        pinned.extend(copy_backs.iter().zip(&in_graph).filter(|c| !c.1).flat_map(|(c, _)| [c.0.clone(), c.1.clone()]));
        pinned.extend(cap.uploads.iter().map(|u| u.0.clone()));
        pinned.extend(cap.copies.iter().flat_map(|c| [c.src.clone(), c.dst.clone()]));
        // NOTE: wgpu buffers hash by identity (their interior state is not part of the key).
        #[allow(clippy::mutable_key_type)]
        let mut seen = std::collections::HashSet::new();
        pinned.retain(|b| seen.insert(b.clone()));
        for b in &pinned {
            *st.pinned.entry(b.clone()).or_default() += 1;
        }
        if !copy_backs.is_empty() {
            let mut enc =
                self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("webtorch:graph") });
            for (s, d, n) in &copy_backs {
                enc.copy_buffer_to_buffer(s, 0, d, 0, *n);
            }
            self.queue.submit([enc.finish()]);
            st.stats.submits += 1;
        }
        for (b, class) in unused {
            st.pool.give(class, b);
        }
        let copy_backs = copy_backs.into_iter().zip(in_graph).filter(|c| !c.1).map(|c| c.0).collect();
        let id = st.next_graph;
        st.next_graph += 1;
        let copies = cap.copies;
        st.graphs.insert(
            id,
            Graph { arena, steps, copies, uploads: cap.uploads, inputs, copy_backs, outputs, rebinds, owned, pinned },
        );
        Ok(id)
    }

    /// Replays graph `id` on `inputs` (contiguous buffers of the captured sizes); returns a
    /// fresh buffer per output. The replay joins the open batch like eager dispatches do (it
    /// is submitted with it, at `batch_threshold` dispatches or 16 after an idle GPU, or on a
    /// read or sync), so the GPU starts on a long graph while the rest is encoded, and short
    /// replays in a loop share submits.
    pub fn graph_run(&self, id: u32, inputs: &[BufId]) -> Result<Vec<BufId>> {
        self.check_lost()?;
        let sizes: Vec<u64> = {
            let st = self.st.borrow();
            let g = st.graphs.get(&id).ok_or_else(|| err!(Torch, "internal: graph {id} is gone"))?;
            if inputs.len() != g.inputs.len() {
                bail!(Torch, "internal: graph {id} takes {} inputs, got {}", g.inputs.len(), inputs.len());
            }
            g.outputs.iter().map(|o| o.1).collect()
        };
        let outs = sizes.iter().map(|&n| self.alloc_from_pool(n.max(4), false)).collect::<Result<Vec<_>>>()?;
        let mut st = self.st.borrow_mut();
        // Out of the map while it records (recording may submit, which needs the whole state).
        let mut g = st.graphs.remove(&id).expect("checked above");
        let r = self.replay_into(&mut st, &mut g, inputs, &outs);
        st.graphs.insert(id, g);
        drop(st);
        if let Err(e) = r {
            for o in outs {
                crate::backend::Backend::release(self, o);
            }
            return Err(e);
        }
        Ok(outs)
    }

    fn replay_into(&self, st: &mut State, g: &mut Graph, inputs: &[BufId], outs: &[BufId]) -> Result<()> {
        // Tiny ops waiting for their launch were recorded before this replay: they run first.
        self.emit_batched(st, false)?;
        if !g.uploads.is_empty() {
            // An upload runs before every command of the batch it joins: submit what is recorded
            // first, so that no earlier replay of this graph sees the next one's uploads.
            if st.encoder.is_some() {
                self.flush_locked(st);
            }
            for (b, words) in &g.uploads {
                self.queue.write_buffer(b, 0, bytemuck::cast_slice(words));
            }
        }
        let mut copied = 0;
        let mut in_place: Vec<Option<wgpu::Buffer>> = Vec::with_capacity(inputs.len());
        for (&src, (dst, n, bind)) in inputs.iter().zip(&g.inputs) {
            let src = st.bufs[src as usize]
                .as_ref()
                .map(|b| b.0.clone())
                .ok_or_else(|| err!(Torch, "internal: a graph input is not live"))?;
            if *bind && !st.pinned.contains_key(&src) {
                in_place.push(Some(src));
            } else {
                self.command_encoder(st).copy_buffer_to_buffer(&src, 0, dst, 0, *n);
                copied += n;
                in_place.push(None);
            }
        }
        let out_bufs: Vec<wgpu::Buffer> = outs.iter().map(|&o| Self::buffer(st, o)).collect();
        let mut anew: Vec<(usize, wgpu::BindGroup)> = Vec::new();
        for r in &mut g.rebinds {
            let mut changed = false;
            let mut bufs = Vec::with_capacity(r.buffers.len());
            for (b, w) in &r.buffers {
                bufs.push(match *w {
                    Bound::Input(k) if in_place[k].is_some() => {
                        changed = true;
                        in_place[k].clone().expect("checked")
                    }
                    Bound::Output(k) => {
                        changed = true;
                        out_bufs[k].clone()
                    }
                    _ => b.clone(),
                });
            }
            if !changed {
                continue;
            }
            let bg = match r.made.get(&bufs) {
                Some(bg) => bg.clone(),
                None => {
                    let layout = &g.steps[r.step].0.layout;
                    let bg = slot_bind_group(&self.device, &g.arena, layout, r.step, bufs.iter());
                    st.stats.bind_groups += 1;
                    if r.made.len() == MADE {
                        r.made.clear();
                    }
                    r.made.insert(bufs, bg.clone());
                    bg
                }
            };
            anew.push((r.step, bg));
        }
        let mut anew = anew.iter().peekable();
        let mut copies = g.copies.iter().peekable();
        // While the profiler times dispatches, each replayed one gets its own timed pass too.
        let timed = st.timing.is_some();
        for (s, (kernel, bg, groups)) in g.steps.iter().enumerate() {
            while let Some(c) = copies.next_if(|c| c.at == s) {
                self.command_encoder(st).copy_buffer_to_buffer(&c.src, c.src_bytes, &c.dst, c.dst_bytes, c.bytes);
            }
            if st.timing.as_ref().is_some_and(|t| t.full()) {
                self.flush_locked(st);
            }
            if st.pass.is_none() || timed {
                self.command_encoder(st);
                let State { encoder, timing, .. } = &mut *st;
                let timestamp_writes = timing.as_mut().map(|t| t.next(kernel.label.clone()));
                let pass = encoder
                    .as_mut()
                    .expect("open encoder")
                    .begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("webtorch:graph"),
                        timestamp_writes,
                    })
                    .forget_lifetime();
                st.pass = Some(pass);
                st.pass_kernel = None;
            }
            let State { pass, pass_kernel, .. } = &mut *st;
            let pass = pass.as_mut().expect("open pass");
            if !pass_kernel.as_ref().is_some_and(|k| Rc::ptr_eq(k, kernel)) {
                pass.set_pipeline(&kernel.pipeline);
                *pass_kernel = Some(kernel.clone());
            }
            let bg = anew.next_if(|a| a.0 == s).map_or(bg, |a| &a.1);
            pass.set_bind_group(0, bg, &[]);
            pass.dispatch_workgroups(groups.0, groups.1, groups.2);
            if timed {
                st.pass = None;
            }
            st.stats.pending += 1;
            let limit = if st.idle { st.threshold.min(IDLE_FIRST) } else { st.threshold };
            if st.stats.pending as usize >= limit && !st.hold {
                self.flush_locked(st);
            }
        }
        // Copies end the open pass (the next dispatch, eager or replayed, opens another).
        for c in copies {
            self.command_encoder(st).copy_buffer_to_buffer(&c.src, c.src_bytes, &c.dst, c.dst_bytes, c.bytes);
        }
        for (s, d, n) in &g.copy_backs {
            self.command_encoder(st).copy_buffer_to_buffer(s, 0, d, 0, *n);
            copied += n;
        }
        for (dst, (src, n, bound)) in out_bufs.iter().zip(&g.outputs) {
            if !bound {
                self.command_encoder(st).copy_buffer_to_buffer(src, 0, dst, 0, *n);
                copied += n;
            }
        }
        st.stats.graph_copy_bytes += copied;
        st.stats.graph_dispatches += g.steps.len() as u64;
        st.stats.dispatches += g.steps.len() as u64;
        st.stats.graph_replays += 1;
        // A replayed check writes the error buffer like a dispatched one, without a slot; what the
        // replay writes (its outputs, the state it updates) may depend on any check.
        st.checks.touch();
        let pinned: Vec<wgpu::Buffer> = st.pinned.keys().cloned().collect();
        st.checks.propagate_all(out_bufs.into_iter().chain(pinned));
        Ok(())
    }

    /// Drops the bind groups replays keep (they hold their buffers: `empty_cache`).
    pub(super) fn graph_forget_bind_groups(st: &mut State) {
        for g in st.graphs.values_mut() {
            for r in &mut g.rebinds {
                r.made.clear();
            }
        }
    }

    /// Forgets graph `id`: its buffers are unpinned and those it owned go back to the pool.
    pub fn graph_drop(&self, id: u32) {
        let mut st = self.st.borrow_mut();
        let Some(g) = st.graphs.remove(&id) else { return };
        for b in &g.pinned {
            if let Some(n) = st.pinned.get_mut(b) {
                *n -= 1;
                if *n == 0 {
                    st.pinned.remove(b);
                }
            }
        }
        let pass_open = st.encoder.is_some();
        for (b, class) in g.owned {
            st.stats.active_bytes -= class;
            if st.pinned.contains_key(&b) {
                continue;
            }
            if pass_open {
                st.pool.give_deferred(class, b);
            } else {
                st.pool.give(class, b);
            }
        }
        drop(g.arena);
    }
}

/// Whether the graph can write the state buffer `dst` where it wrote `src`, instead of copying
/// `src` into `dst` after every replay: the case of gradients made anew each step (`zero_grad`,
/// then `backward`), which the capture computes into new buffers and the replay copied into
/// the gradient tensors held before the step (a transformer block: a dozen copies, 28 MB, after
/// every replay). It can when nothing but dispatches uses either buffer, each is in one
/// copy-back, every dispatch touching `dst` comes before the first one touching `src`, that one
/// writes all of `src` reading none of it, and `dst` is large enough: then binding `dst` in
/// `src`'s place gives every dispatch the values it had, and leaves in `dst` what the copy
/// would have.
fn write_back_in_place(
    cap: &Capture,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    inputs: &[(wgpu::Buffer, u64)],
    outputs: &[(wgpu::Buffer, u64)],
    copy_backs: &[(wgpu::Buffer, wgpu::Buffer, u64)],
) -> bool {
    let used_elsewhere = |b: &wgpu::Buffer| {
        inputs.iter().any(|i| &i.0 == b)
            || outputs.iter().any(|o| &o.0 == b)
            || cap.uploads.iter().any(|u| &u.0 == b)
            || cap.copies.iter().any(|c| &c.src == b || &c.dst == b)
            || copy_backs.iter().flat_map(|c| [&c.0, &c.1]).filter(|x| *x == b).count() != 1
    };
    if src == dst || src.size() > dst.size() || used_elsewhere(src) || used_elsewhere(dst) {
        return false;
    }
    let Some(first) = cap.dispatches.iter().position(|d| d.buffers.contains(src)) else {
        return false;
    };
    let d = &cap.dispatches[first];
    d.writes_whole_output
        && d.buffers[0] == *src
        && d.buffers.iter().filter(|b| *b == src).count() == 1
        && !cap.dispatches[first..].iter().any(|d| d.buffers.contains(dst))
}
