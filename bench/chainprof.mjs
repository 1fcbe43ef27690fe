import path from "node:path"; import { pathToFileURL } from "node:url";
const torch = await import(pathToFileURL(path.resolve("pkg/dist/index.js")).href);
const v = torch.randn([64]);
for (let r = 0; r < (process.env.R ?? 40); r++) { let x = v; for (let i = 0; i < 1000; i++) { const y = x.add(0.001); if (x !== v) x.dispose(); x = y; } await torch.webgpu.sync_device(); x.dispose(); }
