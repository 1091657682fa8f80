// Bundles the third-party libraries into js/build/*.bundle.mjs, the files
// Limina modules import. Run with `npm run bundle` after changing versions.
import { build } from "esbuild";
import { writeFileSync, mkdirSync } from "node:fs";
import { readFileSync } from "node:fs";

const pkg = (name) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url))).version;

const entries = {
  // three/webgpu re-exports the whole core plus WebGPURenderer and the node
  // materials; the addons import "three", aliased to the same copy below.
  three: `export * from "three/webgpu";
export * as TSL from "three/tsl";
export { GLTFLoader } from "three/addons/loaders/GLTFLoader.js";
export { GLTFExporter } from "three/addons/exporters/GLTFExporter.js";`,
  bitecs: `export * from "bitecs";`,
  zod: `export * from "zod";`,
};

// The addons import bare "three"; point it at the same module as
// "three/webgpu" so the bundle carries one copy of the core.
const threeIsWebgpu = {
  name: "three-is-webgpu",
  setup(b) {
    b.onResolve({ filter: /^three$/ }, (args) =>
      b.resolve("three/webgpu", { kind: args.kind, resolveDir: args.resolveDir }));
  },
};

mkdirSync(new URL("./build/", import.meta.url), { recursive: true });
for (const [name, contents] of Object.entries(entries)) {
  await build({
    stdin: { contents, resolveDir: new URL(".", import.meta.url).pathname, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    plugins: [threeIsWebgpu],
    // Minified for parse time; the linked source maps keep stack traces readable.
    minify: true,
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "eof",
    banner: { js: `// ${name} ${pkg(name)}, bundled for Limina by js/build.mjs. Do not edit.` },
    outfile: new URL(`./build/${name}.bundle.mjs`, import.meta.url).pathname,
    logLevel: "warning",
  });
}
writeFileSync(
  new URL("./build/VERSIONS.json", import.meta.url),
  JSON.stringify(Object.fromEntries(Object.keys(entries).map((n) => [n, pkg(n)])), null, 2) + "\n",
);
