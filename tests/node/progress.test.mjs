// torch.utils.progress: the lines a bar writes (plain lines to a log, one line redrawn on a
// terminal), with a fake clock so every field is known; iterables, async iterables and a
// DataLoader; listeners (the playground's bar); and the byte bars of torch.hub and torch.load
// against a local HTTP server.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { PKG_ENTRY } from "./harness.mjs";

const torch = await import(PKG_ENTRY.href);
await torch.init();
const { progress, on_progress, ProgressBar } = torch.utils;

/** A file that records what is written, and a clock the test moves. */
function setup(isTTY = false, columns = undefined) {
  const out = [];
  const clock = { now: 0 };
  return {
    out,
    clock,
    file: { write: (s) => void out.push(s), isTTY, columns },
    time: () => clock.now,
  };
}

describe("progress bars: the text", () => {
  test("a log (not a terminal) gets plain lines: percent, bar, counts, elapsed<remaining, rate", () => {
    const { out, clock, file, time } = setup();
    const seen = [];
    for (const x of progress([10, 20, 30, 40], {
      desc: "train",
      file,
      clock: time,
      mininterval: 0,
      ncols: 60,
    })) {
      seen.push(x);
      clock.now += 0.5;
    }
    assert.deepEqual(seen, [10, 20, 30, 40]);
    // 60 columns each; the bar fills what the text leaves, in eighths of a cell.
    assert.deepEqual(out, [
      "train:   0%|                          | 0/4 [00:00<?, ?it/s]\n",
      "train:  25%|████▌             | 1/4 [00:00<00:01,  2.00it/s]\n",
      "train:  50%|█████████         | 2/4 [00:01<00:01,  2.00it/s]\n",
      "train:  75%|█████████████▌    | 3/4 [00:01<00:00,  2.00it/s]\n",
      "train: 100%|██████████████████| 4/4 [00:02<00:00,  2.00it/s]\n",
    ]);
    for (const line of out) assert.equal(line.length, 61);
  });

  test("a log gets a line at most every mininterval seconds, and the last one on close", () => {
    const { out, clock, file, time } = setup();
    const bar = progress(null, {
      total: 100,
      file,
      clock: time,
      mininterval: 1,
    });
    for (let i = 0; i < 100; i++) {
      clock.now += 0.125; // exact in binary: a line every 8 items
      bar.update();
    }
    bar.close();
    bar.update(5); // after close: nothing
    const counts = out.map((l) => Number(/\| (\d+)\/100/.exec(l)[1]));
    const every8 = Array.from({ length: 13 }, (_, i) => 8 * i);
    assert.deepEqual(counts, [...every8, 100]);
    assert.equal(bar.n, 100);
  });

  test("a terminal gets one line redrawn with \\r, padded over a longer one, ended on close", () => {
    const { out, clock, file, time } = setup(true, 50);
    const bar = progress(null, {
      total: 2000000,
      unit: "B",
      unit_scale: true,
      desc: "w.safetensors",
      file,
      clock: time,
    });
    clock.now = 1;
    bar.update(1500);
    clock.now = 2;
    bar.set_postfix({ loss: 0.123456, step: 3 });
    clock.now = 2.5;
    bar.update(999999);
    bar.close();
    assert.deepEqual(out, [
      "\rw.safetensors:   0%|  | 0.00/2.00M [00:00<?, ?B/s]",
      "\rw.safetensors:   0%| | 1.50k/2.00M [00:01<22:12, 1.50kB/s]",
      "\rw.safetensors:   0%| | 1.50k/2.00M [00:02<44:24, 750B/s, loss=0.1235, step=3]",
      "\rw.safetensors:  50%|▌| 1.00M/2.00M [00:02<00:02, 401kB/s, loss=0.1235, step=3]",
      "\rw.safetensors:  50%|▌| 1.00M/2.00M [00:02<00:02, 401kB/s, loss=0.1235, step=3]",
      "\n",
    ]);
  });

  test("leave: false clears the terminal line on close; no total: count, elapsed and rate", () => {
    const t = setup(true);
    const bar = progress(null, { file: t.file, clock: t.time, leave: false });
    t.clock.now = 2;
    bar.update(7);
    bar.close();
    assert.equal(t.out[0], "\r0it [00:00, ?it/s]");
    assert.equal(t.out[1], "\r7it [00:02,  3.50it/s]");
    assert.equal(t.out.at(-1), `\r${" ".repeat(t.out[1].length - 1)}\r`);
    // an hour and more: h:mm:ss
    const l = setup();
    const long = progress(null, {
      total: 4,
      file: l.file,
      clock: l.time,
      mininterval: 0,
      ncols: 70,
    });
    l.clock.now = 3725;
    long.update(1);
    assert.match(l.out.at(-1), /\[1:02:05<3:06:15, {2}0\.00it\/s\]/);
  });

  test("disable writes nothing; a bad iterable is a TorchError", () => {
    const { out, file } = setup();
    for (const _ of progress([1, 2], { file, disable: true }));
    assert.deepEqual(out, []);
    assert.throws(() => progress(42), torch.TorchError);
    assert.throws(() => [...progress(null, { file })], torch.TorchError);
  });
});

describe("progress bars: what they count", () => {
  test("the total of an array, a Set and a DataLoader (its len()); update by hand", () => {
    const { file } = setup();
    assert.equal(progress([1, 2, 3], { file }).total, 3);
    assert.equal(progress(new Set([1, 2]), { file }).total, 2);
    const ds = new torch.utils.data.TensorDataset(torch.arange(10));
    const loader = new torch.utils.data.DataLoader(ds, { batch_size: 4 });
    const bar = progress(loader, { file, mininterval: 0 });
    assert.equal(bar.total, 3);
    let batches = 0;
    for (const [xb] of bar) {
      batches++;
      assert.ok(xb.shape[0] <= 4);
    }
    assert.equal(batches, 3);
    assert.equal(bar.n, 3);
    function* gen() {
      yield 1;
    }
    assert.equal(progress(gen(), { file }).total, null);
    assert.equal(progress(gen(), { file, total: 9 }).total, 9);
    assert.ok(progress(null, { file }) instanceof ProgressBar);
  });

  test("async iterables with for await; breaking out closes the bar", async () => {
    const { out, file } = setup();
    async function* source() {
      for (let i = 0; i < 5; i++) yield i;
    }
    const got = [];
    for await (const v of progress(source(), {
      total: 5,
      file,
      mininterval: 0,
    }))
      got.push(v);
    assert.deepEqual(got, [0, 1, 2, 3, 4]);
    assert.match(out.at(-1), /5\/5/);
    const states = [];
    const stop = on_progress((s) => states.push(s));
    try {
      for (const v of progress([1, 2, 3, 4], { file, desc: "early" }))
        if (v === 2) break;
    } finally {
      stop();
    }
    assert.equal(states.at(-1).done, true);
    assert.equal(states.at(-1).n, 1);
  });

  test("on_progress listeners get each update's state, until stopped", () => {
    const { file, clock, time } = setup();
    const states = [];
    const stop = on_progress((s) => states.push({ ...s }));
    const bar = progress(null, {
      total: 3,
      desc: "epoch 1",
      file,
      clock: time,
      mininterval: 0,
    });
    clock.now = 1;
    bar.update(2);
    bar.set_postfix({ loss: 0.5 });
    bar.close();
    stop();
    progress([1], { file }).update();
    assert.deepEqual(
      states.map((s) => [
        s.desc,
        s.n,
        s.total,
        s.elapsed,
        s.rate,
        s.unit,
        s.postfix,
        s.done,
      ]),
      [
        ["epoch 1", 0, 3, 0, 0, "it", "", false],
        ["epoch 1", 2, 3, 1, 2, "it", "", false],
        ["epoch 1", 2, 3, 1, 2, "it", "loss=0.5", false],
        ["epoch 1", 2, 3, 1, 2, "it", "loss=0.5", true],
      ],
    );
    assert.throws(() => on_progress(3), torch.TorchError);
  });
});

describe("progress of torch.hub and torch.load downloads", () => {
  const FILE = readFileSync(
    new URL("../parity/fixtures/hub/tiny.safetensors", import.meta.url),
  );
  const server = createServer((req, res) => {
    res.writeHead(200, { "Content-Length": FILE.length });
    // Two chunks, so that the bar moves twice.
    const half = Math.floor(FILE.length / 2);
    res.write(FILE.subarray(0, half), () => res.end(FILE.subarray(half)));
  });
  let base;
  let dir;
  before(async () => {
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${server.address().port}`;
    dir = mkdtempSync(path.join(tmpdir(), "webtorch-progress-"));
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The listener states and stderr text of `run`. */
  async function watch(run) {
    const states = [];
    const stop = on_progress((s) => states.push({ ...s }));
    const written = [];
    const write = process.stderr.write;
    process.stderr.write = (s) => (written.push(String(s)), true);
    try {
      const result = await run();
      return { states, written, result };
    } finally {
      process.stderr.write = write;
      stop();
    }
  }

  test("load_state_dict_from_url(url, { progress: true }) shows the bytes in a bar named after the file", async () => {
    const { states, written, result } = await watch(() =>
      torch.hub.load_state_dict_from_url(`${base}/tiny.safetensors`, {
        model_dir: dir,
        progress: true,
      }),
    );
    assert.ok(Object.keys(result).length > 0);
    const last = states.at(-1);
    assert.deepEqual(
      [last.desc, last.n, last.total, last.unit, last.done],
      ["tiny.safetensors", FILE.length, FILE.length, "B", true],
    );
    assert.equal(states[0].n, 0);
    const text = written.join("");
    assert.match(text, /tiny\.safetensors: 100%/);
    // a cached file: no download, no bar
    const again = await watch(() =>
      torch.hub.load_state_dict_from_url(`${base}/tiny.safetensors`, {
        model_dir: dir,
        progress: true,
      }),
    );
    assert.deepEqual(again.states, []);
  });

  test("torch.load(url, { progress }) reports the bytes read, to a bar or a function", async () => {
    const { states } = await watch(() =>
      torch.load(`${base}/w/tiny.safetensors`, { progress: true }),
    );
    const last = states.at(-1);
    assert.deepEqual(
      [last.desc, last.n, last.total, last.done],
      ["tiny.safetensors", FILE.length, FILE.length, true],
    );
    const reports = [];
    const onProgress = [];
    await torch.load(`${base}/tiny.safetensors`, {
      progress: (l, t) => reports.push([l, t]),
      onProgress: (l, t) => onProgress.push([l, t]),
    });
    assert.deepEqual(reports.at(-1), [FILE.length, FILE.length]);
    assert.deepEqual(reports, onProgress);
  });
});
