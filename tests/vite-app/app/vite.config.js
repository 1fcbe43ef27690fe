// What the package README asks of Vite users: keep webtorch out of the dev server's dependency
// pre-bundling, so that its .wasm stays next to the module that loads it. (`vite build` needs
// nothing.)
export default {
  optimizeDeps: { exclude: ["webtorch"] },
};
