//! Uniform slots and the bind groups of eager dispatches.
//!
//! A dispatch's meta words go into a slot of the uniform arena (written once per submit). Each
//! bind group binds its buffers *and* one slot, so `setBindGroup` takes no dynamic offsets: on
//! Dawn the overload with an offsets array cost more than the rest of a tiny op's recording
//! (bench/KERNELS.md, "Host path"). The price is that a bind group is tied to its slot, so the
//! cache keeps, per set of buffers, the slots it has bind groups for, and a dispatch takes:
//! 1. one of them not yet written in this batch (write the meta there), or
//! 2. one written in this batch with the same meta words (a chain of the same op on the same
//!    buffers shares it), or
//! 3. a free slot and a new bind group for it (the cursor moves on, so new ones spread).
//!
//! A steady loop (the same dispatches over pooled buffers) ends up creating none; a key never
//! holds two bind groups for one slot (a new one is made only when every slot it has is taken).

use rustc_hash::FxHashMap;

use super::{SLOT_BYTES, SLOT_WORDS};

/// Slots in the arena: the most dispatches one batch can hold (then it is submitted).
pub(super) const ARENA_SLOTS: usize = 128;
/// Bind-group cache bound: past it the cache starts over.
const MAX_BIND_GROUPS: usize = 4096;

pub(super) type Key = (Vec<wgpu::Buffer>, usize);

pub(super) struct Binder {
    groups: FxHashMap<Key, Vec<(u16, wgpu::BindGroup)>>,
    count: usize,
    /// The host copy of the arena, and per slot the meta length written in this batch (0: free).
    words: Vec<u32>,
    written: Vec<u16>,
    lo: usize,
    hi: usize,
    cursor: usize,
}

impl Default for Binder {
    fn default() -> Self {
        Binder {
            groups: FxHashMap::default(),
            count: 0,
            words: vec![0; ARENA_SLOTS * SLOT_WORDS],
            written: vec![0; ARENA_SLOTS],
            lo: ARENA_SLOTS,
            hi: 0,
            cursor: 0,
        }
    }
}

impl Binder {
    /// The bind group for `meta` over `key`'s buffers, writing the meta into its slot; the key
    /// back when every slot of this batch is taken (submit, then ask again). The flag tells
    /// whether a bind group was created.
    pub(super) fn bind(
        &mut self,
        device: &wgpu::Device,
        arena: &wgpu::Buffer,
        layout: &wgpu::BindGroupLayout,
        key: Key,
        meta: &[u32],
    ) -> Result<(wgpu::BindGroup, bool), Key> {
        // Stored lengths are meta.len() + 1, so an empty meta still marks its slot taken.
        let len = (meta.len() + 1) as u16;
        if let Some(list) = self.groups.get(&key) {
            let mut same = None;
            for (slot, bg) in list {
                let s = *slot as usize;
                if self.written[s] == 0 {
                    let bg = bg.clone();
                    self.write(s, meta);
                    return Ok((bg, false));
                }
                if same.is_none() && self.written[s] == len && self.words[s * SLOT_WORDS..][..meta.len()] == *meta {
                    same = Some(bg.clone());
                }
            }
            if let Some(bg) = same {
                return Ok((bg, false));
            }
        }
        let Some(s) = (0..ARENA_SLOTS).map(|i| (self.cursor + i) % ARENA_SLOTS).find(|&s| self.written[s] == 0) else {
            return Err(key);
        };
        self.cursor = (s + 1) % ARENA_SLOTS;
        let bg = slot_bind_group(device, arena, layout, s, key.0.iter());
        if self.count >= MAX_BIND_GROUPS {
            self.groups.clear();
            self.count = 0;
        }
        self.count += 1;
        self.groups.entry(key).or_default().push((s as u16, bg.clone()));
        self.write(s, meta);
        Ok((bg, true))
    }

    fn write(&mut self, s: usize, meta: &[u32]) {
        self.words[s * SLOT_WORDS..][..meta.len()].copy_from_slice(meta);
        self.written[s] = (meta.len() + 1) as u16;
        self.lo = self.lo.min(s);
        self.hi = self.hi.max(s);
    }

    /// At a submit: the span of the arena written in this batch (byte offset, words), and every
    /// slot free again.
    pub(super) fn take_written(&mut self) -> Option<(u64, &[u32])> {
        if self.lo > self.hi {
            return None;
        }
        let (lo, hi) = (self.lo, self.hi);
        self.written[lo..=hi].fill(0);
        self.lo = ARENA_SLOTS;
        self.hi = 0;
        Some((lo as u64 * SLOT_BYTES, &self.words[lo * SLOT_WORDS..(hi + 1) * SLOT_WORDS]))
    }

    /// Drops every cached bind group (they hold their buffers).
    pub(super) fn clear(&mut self) {
        self.groups.clear();
        self.count = 0;
    }
}

/// A bind group of uniform slot `slot` of `arena` (binding 0) and `buffers` (bindings 1…): what
/// eager dispatches bind (`Binder::bind`) and a graph's dispatches (`graph.rs`, with the graph's
/// own arena).
pub(super) fn slot_bind_group<'a>(
    device: &wgpu::Device,
    arena: &wgpu::Buffer,
    layout: &wgpu::BindGroupLayout,
    slot: usize,
    buffers: impl Iterator<Item = &'a wgpu::Buffer>,
) -> wgpu::BindGroup {
    let mut entries = vec![wgpu::BindGroupEntry {
        binding: 0,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: arena,
            offset: slot as u64 * SLOT_BYTES,
            size: wgpu::BufferSize::new(SLOT_BYTES),
        }),
    }];
    for (i, b) in buffers.enumerate() {
        entries.push(wgpu::BindGroupEntry { binding: 1 + i as u32, resource: b.as_entire_binding() });
    }
    device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout, entries: &entries })
}
