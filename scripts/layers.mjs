// Prints the folder-level imports of src/ (from dependency-cruiser), the
// arrows of the layer picture in docs/ARCHITECTURE.md: `npm run -s layers`.
import { execFileSync } from 'node:child_process';

const json = execFileSync('npx', ['depcruise', 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
  encoding: 'utf8',
  maxBuffer: 64 << 20,
});
const group = (p) => {
  const file = /^src\/(server\/)?([^/]+\.ts)$/.exec(p);
  if (file) return `${file[1] ?? ''}${file[2]}`;
  const layered = /^src\/server\/(api|domain|ground)\/([^/]+)\//.exec(p);
  if (layered) return `server/${layered[1]}/${layered[2]}`;
  const server = /^src\/server\/([^/]+)\//.exec(p);
  if (server) return `server/${server[1]}`;
  return /^src\/([^/]+)\//.exec(p)?.[1];
};
const arrows = new Map();
for (const mod of JSON.parse(json).modules) {
  const from = group(mod.source);
  if (!from) continue;
  for (const dep of mod.dependencies) {
    const to = group(dep.resolved);
    if (!to || to === from) continue;
    const typesOnly = dep.dependencyTypes.includes('type-only');
    const set = arrows.get(from) ?? new Map();
    set.set(to, (set.get(to) ?? true) && typesOnly);
    arrows.set(from, set);
  }
}
for (const [from, tos] of [...arrows].sort(([a], [b]) => a.localeCompare(b))) {
  const list = [...tos]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([to, typesOnly]) => (typesOnly ? `${to} (types)` : to));
  console.log(`${from} → ${list.join(', ')}`);
}
