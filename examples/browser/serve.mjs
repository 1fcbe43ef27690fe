// Serves the repository root on localhost for the browser examples (after `make pkg`):
//   node examples/browser/serve.mjs [--port 8081]
// then open http://localhost:8081/examples/browser/mlp-digits.html
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "../../scripts/serve.mjs";

const root = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../..",
);
const i = process.argv.indexOf("--port");
const port = i >= 0 ? Number(process.argv[i + 1]) : 8081;
const server = await serve({ mounts: { "/": root }, port, quiet: false });
console.log(`${server.url}examples/browser/mlp-digits.html`);
