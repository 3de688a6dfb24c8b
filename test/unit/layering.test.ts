import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');
function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

describe('layering', () => {
  it("src/server and src/client never import 'vscode'", () => {
    for (const dir of ['src/server', 'src/client']) {
      for (const f of files(join(root, dir))) {
        assert.ok(!/from ['"]vscode['"]|require\(['"]vscode['"]\)/.test(readFileSync(f, 'utf8')), `${f} imports vscode`);
      }
    }
  });

  it('src/client does not depend on src/server at run time', () => {
    for (const f of files(join(root, 'src/client'))) {
      const src = readFileSync(f, 'utf8');
      assert.ok(!/^import (?!type)[^;]*from ['"]\.\.\/server/m.test(src), `${f} imports the server`);
    }
  });
});
