// A fresh app around the packed package, as a user gets it: `npm pack` of pkg/ installed by
// tarball into a new directory (no registry needed: the package has no dependencies). Shared by
// the first-hour tests (tests/node/first_hour.test.mjs) and the bundler suite
// (tests/bundlers/bundlers.test.mjs).
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * A new temp dir with webtorch installed from the packed pkg/. Returns `{ dir, sh, remove }`:
 * `sh(cmd, args, env)` runs in it and resolves to `{ stdout, stderr }` (rejects with both), and
 * `remove()` deletes it (a failed test leaves it for inspection instead).
 */
export async function packedApp(prefix) {
  const dir = await mkdtemp(path.join(tmpdir(), `webtorch-${prefix}-`));
  const sh = (cmd, args, env = {}) =>
    run(cmd, args, {
      cwd: dir,
      env: { ...process.env, ...env },
      maxBuffer: 64 << 20,
    }).catch((e) => {
      throw new Error(
        `${cmd} ${args.join(" ")} failed (${e.code}):\n${e.stdout}\n${e.stderr}`,
      );
    });
  await writeFile(
    path.join(dir, "package.json"),
    JSON.stringify({ name: `webtorch-${prefix}`, private: true }, null, 2),
  );
  const { stdout } = await sh("npm", [
    "pack",
    path.join(ROOT, "pkg"),
    "--pack-destination",
    dir,
    "--json",
  ]);
  const tarball = path.join(dir, JSON.parse(stdout)[0].filename);
  await sh("npm", [
    "install",
    tarball,
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
  ]);
  return {
    dir,
    sh,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
