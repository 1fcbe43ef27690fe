//! GPU timing for `torch.profiler`: while a profile records on an adapter with `timestamp-query`,
//! the WebGPU backend gives each dispatch its own compute pass whose beginning and end write
//! timestamps; each submit resolves them into a buffer that is read back when the profile ends.
//! This module holds the backend-independent half: which op is running (kernels are attributed
//! to it) and turning resolved timestamps into events.

use crate::cell::RefCell;

/// One kernel's GPU time.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GpuEvent {
    /// The kernel's label (`webtorch:add+relu:float32`).
    pub kernel: String,
    /// The op whose call dispatched it (`""` for kernels dispatched outside any op: a flush).
    pub op: String,
    /// The host start time of that op's call, in µs (-1 outside any op).
    pub op_start_us: f64,
    /// GPU start, in ns since the profile's first kernel began.
    pub start_ns: f64,
    pub dur_ns: f64,
}

/// What a dispatch is attributed to: the kernel label, the op, the op's host start.
pub type Tag = (String, String, f64);

thread_local! {
    static CURRENT: RefCell<Option<(String, f64)>> = const { RefCell::new(None) };
}

/// Sets the op running now (the profiler does, around each timed call); returns the previous.
pub fn set_current_op(op: Option<(String, f64)>) -> Option<(String, f64)> {
    CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), op))
}

/// The tag of a kernel dispatched now.
pub fn tag(kernel: String) -> Tag {
    CURRENT.with(|c| match &*c.borrow() {
        Some((op, start)) => (kernel, op.clone(), *start),
        None => (kernel, String::new(), -1.0),
    })
}

/// Events from resolved timestamps: `raw[2i]` and `raw[2i + 1]` are the beginning and end of
/// dispatch i (tagged `tags[i]`), in ticks of `period_ns`. Start times are relative to the
/// earliest beginning over all batches (`origin`, in ticks). A pair whose end precedes its start
/// (an adapter that does not order them) counts 0 ns.
pub fn parse(raw: &[u64], period_ns: f32, tags: &[Tag], origin: u64) -> Vec<GpuEvent> {
    let p = period_ns as f64;
    tags.iter()
        .enumerate()
        .filter_map(|(i, (kernel, op, op_start_us))| {
            let (b, e) = (*raw.get(2 * i)?, *raw.get(2 * i + 1)?);
            Some(GpuEvent {
                kernel: kernel.clone(),
                op: op.clone(),
                op_start_us: *op_start_us,
                start_ns: b.saturating_sub(origin) as f64 * p,
                dur_ns: e.saturating_sub(b) as f64 * p,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_pairs_tags_and_scales_by_the_period() {
        let tags: Vec<Tag> = vec![
            ("webtorch:matmul:float32".into(), "matmul".into(), 10.0),
            ("webtorch:add+relu:float32".into(), String::new(), -1.0),
            ("webtorch:sum:float32".into(), "sum".into(), 30.0),
        ];
        // Ticks of 2.5 ns; the last pair is reversed (an unordered adapter): 0 ns, not negative.
        let raw = [1000, 1400, 1500, 1520, 1600, 1590];
        let ev = parse(&raw, 2.5, &tags, 1000);
        assert_eq!(ev.len(), 3);
        assert_eq!((ev[0].start_ns, ev[0].dur_ns), (0.0, 1000.0));
        assert_eq!((ev[1].start_ns, ev[1].dur_ns), (1250.0, 50.0));
        assert_eq!((ev[2].start_ns, ev[2].dur_ns), (1500.0, 0.0));
        assert_eq!(ev[0].op, "matmul");
        assert_eq!(ev[1].op_start_us, -1.0);
        assert_eq!(ev[2].kernel, "webtorch:sum:float32");
        // Fewer timestamps than tags (a truncated read): only whole pairs become events.
        assert_eq!(parse(&raw[..3], 1.0, &tags, 0).len(), 1);
    }

    #[test]
    fn the_current_op_tags_kernels() {
        let prev = set_current_op(Some(("relu".into(), 5.0)));
        assert_eq!(tag("k".into()), ("k".into(), "relu".into(), 5.0));
        set_current_op(prev);
        assert_eq!(tag("k".into()).1, "");
    }
}
