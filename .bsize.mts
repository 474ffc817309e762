import { build } from 'esbuild';
import { relayBuildOptions } from './infra/bundling.ts';
const name = (process.argv[2] ?? 'callback') as never;
const out = `/tmp/bs/${name}.js`;
const r0 = await build({ ...relayBuildOptions(name, out), metafile: true });
const [key, o] = Object.entries(r0.metafile!.outputs).find(([k]) => k.endsWith('.js'))!;
console.log(key, o.bytes);
const by = Object.entries(o.inputs).filter(([f]) => !f.includes('node_modules')).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
for (const [f, b] of by.slice(0, Number(process.argv[3] ?? 40))) console.log(b.bytesInOutput, f);
