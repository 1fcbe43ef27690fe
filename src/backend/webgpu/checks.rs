//! Device-side value checks: out-of-range indices (index_select, gather, scatter and the ops
//! built on them) and value preconditions (class indices, probabilities) of tensors that live on
//! the GPU. A kernel cannot throw, and reading the values back before every op would stall the
//! queue, so — as CUDA's device-side assert does — a small check kernel (`shaders/check.wgsl`)
//! records failures in an error buffer, and the next read or sync copies that buffer out (in the
//! same submit) and clears it, with the message PyTorch's CPU kernels give. Reads and syncs pay
//! for this only after a check was dispatched (`Stats::check_reads` counts them).
//!
//! A failure is raised where it matters, not on whatever read comes next. Each check gets a
//! number and, in the error buffer, a slot of its own; the checked tensor's buffer is *tainted*
//! with the number, and every kernel or copy passes the taints of the buffers it binds to the
//! buffers it writes. A read raises the failures its buffer depends on (waiting, if need be, for
//! the fetch that reports them) and returns the values otherwise; a sync raises the failures of
//! the checks it fetched. A failed check's taint stays until the buffer is reused, so every later
//! read of a result computed from the bad values raises too. Checks without a slot — a replayed
//! graph's, whose slots were fixed at capture, or more than `SLOTS` between two fetches — cannot
//! be told apart: a failure among them is raised by the read or sync that fetches it.

use std::collections::HashMap;
use std::rc::Rc;

use futures_channel::oneshot;
use rustc_hash::{FxHashMap, FxHashSet};

use super::codegen::KernelKey;
use super::launch::put;
use super::{size_class, State, WebGpuBackend, MAX_RANK, WG};
use crate::backend::{BufId, CheckMessage, ValueCheck};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::{bail, err};

/// Checks that can be told apart between two fetches.
const SLOTS: u32 = 1024;
/// The error buffer: 8 header words (the first failure of all), then 4 words a slot.
const HEADER_WORDS: usize = 8;
const ERR_WORDS: usize = HEADER_WORDS + SLOTS as usize * 4;
const ERR_BYTES: u64 = ERR_WORDS as u64 * 4;
/// Failed checks remembered beyond the buffers that depend on them (see `Checks::resolve`).
const MAX_FAILED: usize = 4096;

/// The checks' part of the backend state.
#[derive(Default)]
pub(super) struct Checks {
    /// The error buffer (made on first use; never pooled).
    err: Option<BufId>,
    /// A check ran since the error buffer was last fetched.
    pending: bool,
    /// Messages by id (ids are recorded in kernels, also in captured graphs: they stay valid).
    /// Shared with pending fetches, which look the failed check's message up when it arrives.
    messages: Rc<crate::cell::RefCell<Vec<CheckMessage>>>,
    ids: HashMap<CheckMessage, u32>,
    /// The next check's number; checks `window..next` are in the error buffer's slots now.
    next: u32,
    window: u32,
    /// The open window holds checks without a slot (see the module doc).
    unattributed: bool,
    /// Windows fetched and not decoded yet, with the reads waiting for them.
    in_flight: Vec<InFlight>,
    /// Per buffer, the checks its contents depend on that have not passed (unresolved or failed),
    /// sorted. Empty while no check is unresolved or failed: then nothing is tracked.
    pub(super) taint: FxHashMap<wgpu::Buffer, Vec<u32>>,
    /// Checks known to have failed, with their errors.
    failed: FxHashMap<u32, Error>,
}

struct InFlight {
    window: (u32, u32),
    waiters: Vec<oneshot::Sender<()>>,
}

/// What a read or sync must decode after its submit: the copy of the error buffer, the messages
/// it may name and the checks (`window`) it reports.
pub(super) struct Fetch {
    staging: wgpu::Buffer,
    messages: Rc<crate::cell::RefCell<Vec<CheckMessage>>>,
    window: (u32, u32),
    unattributed: bool,
}

/// The checks a read's buffer depends on, and the fetches (by other reads or syncs) it must wait
/// for to know whether they passed.
#[derive(Default)]
pub(super) struct Depends {
    checks: Vec<u32>,
    waits: Vec<oneshot::Receiver<()>>,
}

fn merge(into: &mut Vec<u32>, from: &[u32]) {
    into.extend_from_slice(from);
    into.sort_unstable();
    into.dedup();
}

impl Checks {
    /// Marks the error buffer as possibly written by checks without a slot (a captured graph with
    /// checks was replayed).
    pub(super) fn touch(&mut self) {
        if self.err.is_some() {
            self.pending = true;
            self.unattributed = true;
        }
    }

    /// A kernel or copy read `read` and wrote `written`: the written buffers now depend on what
    /// every buffer it bound depends on.
    pub(super) fn propagate(&mut self, written: &[wgpu::Buffer], read: &[wgpu::Buffer]) {
        if self.taint.is_empty() {
            return;
        }
        let mut all: Vec<u32> = Vec::new();
        for b in written.iter().chain(read) {
            if let Some(t) = self.taint.get(b) {
                merge(&mut all, t);
            }
        }
        if all.is_empty() {
            return;
        }
        for b in written {
            merge(self.taint.entry(b.clone()).or_default(), &all);
        }
    }

    /// Every buffer in `written` depends on whatever any buffer depends on (a replayed graph,
    /// whose buffers are not followed one by one).
    pub(super) fn propagate_all(&mut self, written: impl Iterator<Item = wgpu::Buffer>) {
        if self.taint.is_empty() {
            return;
        }
        let mut all: Vec<u32> = Vec::new();
        for t in self.taint.values() {
            merge(&mut all, t);
        }
        for b in written {
            merge(self.taint.entry(b).or_default(), &all);
        }
    }

    /// A buffer taken for a new tensor depends on nothing yet.
    pub(super) fn forget(&mut self, b: &wgpu::Buffer) {
        if !self.taint.is_empty() {
            self.taint.remove(b);
        }
    }

    /// Drops what is tracked for buffers other than `live` ones (the pool was emptied: holding
    /// the others would keep their memory).
    pub(super) fn keep_only<'a>(&mut self, live: impl Iterator<Item = &'a wgpu::Buffer>) {
        if self.taint.is_empty() {
            return;
        }
        // NOTE: wgpu buffers hash by identity (their interior state is not part of the key).
        #[allow(clippy::mutable_key_type)]
        let live: FxHashSet<&wgpu::Buffer> = live.collect();
        self.taint.retain(|b, _| live.contains(b));
    }

    /// What a read of `b` must wait for, the read's own fetch (`own`) aside.
    fn depends(&mut self, b: &wgpu::Buffer, own: Option<(u32, u32)>) -> Depends {
        let Some(checks) = self.taint.get(b).cloned() else { return Depends::default() };
        let mut waits = Vec::new();
        for f in &mut self.in_flight {
            let (lo, hi) = f.window;
            if Some(f.window) != own && checks.iter().any(|&c| lo <= c && c < hi) {
                let (tx, rx) = oneshot::channel();
                f.waiters.push(tx);
                waits.push(rx);
            }
        }
        Depends { checks, waits }
    }

    /// Whether check `c` is still to be reported (in the open window or a fetch in flight).
    fn unresolved(&self, c: u32) -> bool {
        c >= self.window || self.in_flight.iter().any(|f| f.window.0 <= c && c < f.window.1)
    }

    /// The checks of `window` are reported: `failures` failed, the others passed.
    fn resolve(&mut self, window: (u32, u32), failures: Vec<(u32, Error)>) {
        self.failed.extend(failures);
        if let Some(i) = self.in_flight.iter().position(|f| f.window == window) {
            for w in self.in_flight.swap_remove(i).waiters {
                let _ = w.send(());
            }
        }
        #[allow(clippy::mutable_key_type)]
        let taint = std::mem::take(&mut self.taint);
        #[allow(clippy::mutable_key_type)]
        let kept = taint
            .into_iter()
            .filter_map(|(b, mut cs)| {
                cs.retain(|c| self.failed.contains_key(c) || self.unresolved(*c));
                (!cs.is_empty()).then_some((b, cs))
            })
            .collect();
        self.taint = kept;
        // A read in flight may still ask about a failure no buffer depends on any more, so they
        // are kept, up to a bound; past it the oldest that no buffer depends on are forgotten.
        if self.failed.len() > MAX_FAILED {
            let mut old: Vec<u32> = self.failed.keys().copied().collect();
            old.sort_unstable();
            let cited: FxHashSet<u32> = self.taint.values().flatten().copied().collect();
            let extra = self.failed.len() - MAX_FAILED / 2;
            for c in old.into_iter().filter(|c| !cited.contains(c)).take(extra) {
                self.failed.remove(&c);
            }
        }
    }

    /// The error of the first failed check among `checks`, if any.
    fn verdict(&self, checks: &[u32]) -> Result<()> {
        match checks.iter().find_map(|c| self.failed.get(c)) {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}

impl WebGpuBackend {
    pub(super) fn check_values_impl(&self, k: &ValueCheck) -> Result<()> {
        if k.shape.len() > MAX_RANK {
            bail!(Shape, "webgpu: value checks over more than {MAX_RANK} dims are not supported");
        }
        let n: usize = k.shape.iter().product();
        if n == 0 {
            return Ok(());
        }
        let int = match k.x.dtype {
            DType::Int32 | DType::Int64 => true,
            DType::Float32 => false,
            other => bail!(DType, "webgpu: value checks of {} tensors are not supported", other.name()),
        };
        let bits = |v: f64| -> u32 {
            if int {
                // Bounds outside i32 clamp (an int32 value cannot pass them anyway).
                (v.clamp(i32::MIN as f64, i32::MAX as f64) as i32) as u32
            } else {
                (v.clamp(f32::MIN as f64, f32::MAX as f64) as f32).to_bits()
            }
        };
        let (err_buf, id) = {
            let mut st = self.st.borrow_mut();
            let err_buf = self.error_buffer(&mut st)?;
            let c = &mut st.checks;
            let id = match c.ids.get(&k.message) {
                Some(&id) => id,
                None => {
                    let mut messages = c.messages.borrow_mut();
                    let id = messages.len() as u32;
                    messages.push(k.message.clone());
                    c.ids.insert(k.message.clone(), id);
                    id
                }
            };
            (err_buf, id)
        };
        let (check, slot) = {
            let c = &mut self.st.borrow_mut().checks;
            let check = c.next;
            c.next = c.next.wrapping_add(1);
            let slot = check.wrapping_sub(c.window);
            if slot < SLOTS {
                (check, slot)
            } else {
                c.unattributed = true;
                (check, u32::MAX)
            }
        };
        let groups = Self::groups_for(n)?;
        let (gx, gy) = Self::grid(groups);
        let mut meta = [0u32; 32];
        let flags = u32::from(int) | if k.except.is_some() { 2 } else { 0 };
        put(&mut meta, 0, &[n, k.shape.len(), (gx * WG) as usize, k.x.offset, id as usize, flags as usize])?;
        meta[6] = bits(k.lo);
        meta[7] = bits(k.hi);
        meta[8] = k.except.map_or(0, bits);
        meta[9] = slot;
        put(&mut meta, 16, &k.shape)?;
        put(&mut meta, 24, &k.x.strides)?;
        self.record(&KernelKey::Check, &meta, &[err_buf, k.x.buf], (gx, gy, 1))?;
        let mut st = self.st.borrow_mut();
        // What is computed from the checked values from now on depends on this check.
        let x = Self::buffer(&st, k.x.buf);
        merge(st.checks.taint.entry(x).or_default(), &[check]);
        st.checks.pending = true;
        st.stats.value_checks += 1;
        Ok(())
    }

    /// The error buffer, made zeroed on first use.
    fn error_buffer(&self, st: &mut State) -> Result<BufId> {
        if let Some(id) = st.checks.err {
            return Ok(id);
        }
        let buf = self.alloc_buffer(
            ERR_BYTES,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            "webtorch:check-errors",
        )?;
        let id = st.bufs.len() as BufId;
        st.bufs.push(Some((buf, ERR_BYTES)));
        st.checks.err = Some(id);
        Ok(id)
    }

    /// When a check ran since the last fetch: a staging buffer for the error buffer's copy, which
    /// `record_fetch` encodes into the submit that the read or sync makes.
    pub(super) fn prepare_fetch(&self, st: &mut State) -> Result<Option<Fetch>> {
        if !st.checks.pending {
            return Ok(None);
        }
        let class = size_class(ERR_BYTES);
        let staging = match st.staging.take(class) {
            Some(b) => b,
            None => self.alloc_buffer(
                class,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                "webtorch:staging",
            )?,
        };
        let c = &mut st.checks;
        let window = (c.window, c.next);
        let unattributed = c.unattributed;
        c.in_flight.push(InFlight { window, waiters: Vec::new() });
        (c.window, c.unattributed, c.pending) = (c.next, false, false);
        st.stats.check_reads += 1;
        Ok(Some(Fetch { staging, messages: Rc::clone(&st.checks.messages), window, unattributed }))
    }

    /// The error buffer and the staging buffer of a fetch, for `record_fetch`.
    pub(super) fn fetch_buffers(st: &State, fetch: &Option<Fetch>) -> Option<(wgpu::Buffer, wgpu::Buffer)> {
        let f = fetch.as_ref()?;
        Some((Self::buffer(st, st.checks.err?), f.staging.clone()))
    }

    /// Copies the error buffer out and clears it (inside the read's or sync's submit).
    pub(super) fn record_fetch(buffers: Option<(wgpu::Buffer, wgpu::Buffer)>, enc: &mut wgpu::CommandEncoder) {
        if let Some((err, staging)) = buffers {
            enc.copy_buffer_to_buffer(&err, 0, &staging, 0, ERR_BYTES);
            enc.clear_buffer(&err, 0, None);
        }
    }

    /// Maps the fetched copy (after the submit) and records which checks of its window failed.
    /// Returns the first failure of the window; an `Err` when a check without a slot failed (it
    /// cannot be told which, so the read or sync that fetched it raises it).
    pub(super) async fn decode_fetch(&self, fetch: Fetch) -> Result<Option<Error>> {
        let (tx, rx) = futures_channel::oneshot::channel();
        fetch.staging.map_async(wgpu::MapMode::Read, 0..ERR_BYTES, move |r| {
            let _ = tx.send(r);
        });
        #[cfg(not(target_arch = "wasm32"))]
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        let mapped = match rx.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(err!(Device, "WebGPU buffer mapping failed: {e}")),
            Err(_) => Err(err!(Device, "WebGPU device was lost during a read")),
        };
        if let Err(e) = mapped {
            // Nothing is known of the window: its checks count as failed, with the device's error.
            let (lo, hi) = fetch.window;
            self.st.borrow_mut().checks.resolve(fetch.window, (lo..hi).map(|c| (c, e.clone())).collect());
            return Err(e);
        }
        let words: Vec<u32> = {
            let view =
                fetch.staging.get_mapped_range(0..ERR_BYTES).map_err(|e| err!(Device, "WebGPU map range: {e:?}"))?;
            bytemuck::cast_slice(&view).to_vec()
        };
        fetch.staging.unmap();
        let messages = fetch.messages.borrow();
        let error = |id: u32, value: u32, side: u32, flags: u32| -> Error {
            let Some(message) = messages.get(id as usize) else {
                return err!(Device, "webgpu: a device-side check failed (unknown check {id})");
            };
            let value = if flags & 1 != 0 { (value as i32).to_string() } else { f32::from_bits(value).to_string() };
            message.error(side == 1, &value)
        };
        let (lo, hi) = fetch.window;
        let mut failures = Vec::new();
        if !fetch.unattributed {
            for c in lo..hi {
                let at = HEADER_WORDS + c.wrapping_sub(lo) as usize * 4;
                if words[at] != 0 {
                    let w = &words[at..at + 4];
                    failures.push((c, error(w[1], w[2], w[3] & 0xff, w[3] >> 8)));
                }
            }
        }
        let unattributed = (fetch.unattributed && words[0] != 0).then(|| error(words[1], words[2], words[3], words[4]));
        drop(messages);
        let first = failures.first().map(|f| f.1.clone());
        {
            let mut st = self.st.borrow_mut();
            st.staging.give(size_class(ERR_BYTES), fetch.staging);
            st.checks.resolve(fetch.window, failures);
        }
        match unattributed {
            Some(e) => Err(e),
            None => Ok(first),
        }
    }

    /// The checks a read of `id` depends on (taken after its submit), `own` being its fetch.
    pub(super) fn read_depends(st: &mut State, id: BufId, own: &Option<Fetch>) -> Depends {
        if st.checks.taint.is_empty() {
            return Depends::default();
        }
        let b = Self::buffer(st, id);
        st.checks.depends(&b, own.as_ref().map(|f| f.window))
    }
}

/// A read's end: its own fetch decoded (a failure without a slot raised), the fetches it waits
/// for decoded, then the first failure among the checks its buffer depends on, else `result`.
pub(super) async fn settle_read<T>(
    me: &WebGpuBackend,
    fetch: Option<Fetch>,
    depends: Depends,
    result: Result<T>,
) -> Result<T> {
    if let Some(f) = fetch {
        me.decode_fetch(f).await?;
    }
    for w in depends.waits {
        // A dropped sender: that fetch failed and reported itself; its checks are resolved.
        let _ = w.await;
    }
    me.st.borrow().checks.verdict(&depends.checks)?;
    result
}

/// A sync's end: the first failure among the checks it fetched is raised, before `result`.
pub(super) async fn settle_sync(me: &WebGpuBackend, fetch: Option<Fetch>, result: Result<()>) -> Result<()> {
    if let Some(f) = fetch {
        if let Some(e) = me.decode_fetch(f).await? {
            return Err(e);
        }
    }
    result
}
