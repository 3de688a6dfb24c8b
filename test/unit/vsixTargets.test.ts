import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { unzipSync } from 'fflate';
import type * as NativeTargets from '../../scripts/nativeTargets.mjs' with { 'resolution-mode': 'import' };
import { tempDir } from '../helpers/bridgeFixture';

const ROOT = resolve(__dirname, '..', '..');
const load = (): Promise<typeof NativeTargets> => import('../../scripts/nativeTargets.mjs');

/**
 * What each target's VSIX must carry, written out here rather than read from
 * the packaging code: the canvas (Skia), and FSRS's optimizer (fsrs-rs) where
 * the npm registry has a build of @open-spaced-repetition/binding 0.5.0 for
 * the target, linux-x64-gnu only (elsewhere the optimizer answers 503
 * FSRS_OPTIMIZER_UNAVAILABLE).
 */
const EXPECTED: Record<string, { file: string; format: string; cpu: string; libc?: string; fsrs?: string }> = {
  'win32-x64': { file: 'skia.win32-x64-msvc.node', format: 'pe', cpu: 'x64' },
  'win32-arm64': { file: 'skia.win32-arm64-msvc.node', format: 'pe', cpu: 'arm64' },
  'darwin-x64': { file: 'skia.darwin-x64.node', format: 'macho', cpu: 'x64' },
  'darwin-arm64': { file: 'skia.darwin-arm64.node', format: 'macho', cpu: 'arm64' },
  'linux-x64': {
    file: 'skia.linux-x64-gnu.node',
    format: 'elf',
    cpu: 'x64',
    libc: 'glibc',
    fsrs: 'fsrs-binding.linux-x64-gnu.node',
  },
  'linux-arm64': { file: 'skia.linux-arm64-gnu.node', format: 'elf', cpu: 'arm64', libc: 'glibc' },
  'alpine-x64': { file: 'skia.linux-x64-musl.node', format: 'elf', cpu: 'x64', libc: 'musl' },
};

function pe(machine: number): Uint8Array {
  const b = new Uint8Array(256);
  const v = new DataView(b.buffer);
  b.set([0x4d, 0x5a]);
  v.setUint32(0x3c, 0x80, true);
  v.setUint32(0x80, 0x50450000, false);
  v.setUint16(0x84, machine, true);
  return b;
}

function macho(cpu: number): Uint8Array {
  const b = new Uint8Array(64);
  const v = new DataView(b.buffer);
  v.setUint32(0, 0xfeedfacf, true);
  v.setUint32(4, cpu, true);
  return b;
}

/** A minimal ELF64 shared object: one PT_LOAD, a PT_DYNAMIC naming `needed`, and their string table. */
function elf(machine: number, needed: string[]): Uint8Array {
  const b = new Uint8Array(1024);
  const v = new DataView(b.buffer);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  v.setUint16(0x12, machine, true);
  v.setBigUint64(0x20, 64n, true); // e_phoff
  v.setUint16(0x36, 56, true);
  v.setUint16(0x38, 2, true);
  const ph = (i: number, type: number, offset: number, vaddr: number, size: number) => {
    const at = 64 + i * 56;
    v.setUint32(at, type, true);
    v.setBigUint64(at + 8, BigInt(offset), true);
    v.setBigUint64(at + 16, BigInt(vaddr), true);
    v.setBigUint64(at + 32, BigInt(size), true);
  };
  ph(0, 1, 0, 0x10000, 1024); // PT_LOAD: the whole file at vaddr 0x10000
  ph(1, 2, 256, 0x10100, 256); // PT_DYNAMIC
  const strtab = 600;
  let str = 1;
  let dyn = 256;
  for (const name of needed) {
    b.set(new TextEncoder().encode(name), strtab + str);
    v.setBigUint64(dyn, 1n, true);
    v.setBigUint64(dyn + 8, BigInt(str), true);
    dyn += 16;
    str += name.length + 1;
  }
  v.setBigUint64(dyn, 5n, true);
  v.setBigUint64(dyn + 8, BigInt(0x10000 + strtab), true);
  return b;
}

describe('native binaries by header (scripts/nativeTargets.mjs)', () => {
  it('reads PE machine, Mach-O CPU, ELF machine and libc', async () => {
    const { describeBinary } = await load();
    assert.deepEqual(describeBinary(pe(0x8664)), { format: 'pe', cpu: 'x64' });
    assert.deepEqual(describeBinary(pe(0xaa64)), { format: 'pe', cpu: 'arm64' });
    assert.deepEqual(describeBinary(macho(0x01000007)), { format: 'macho', cpu: 'x64' });
    assert.deepEqual(describeBinary(macho(0x0100000c)), { format: 'macho', cpu: 'arm64' });
    assert.deepEqual(describeBinary(elf(0x3e, ['libm.so.6', 'libc.so.6'])), {
      format: 'elf',
      cpu: 'x64',
      libc: 'glibc',
    });
    assert.deepEqual(describeBinary(elf(0xb7, ['libgcc_s.so.1', 'libc.so'])), {
      format: 'elf',
      cpu: 'arm64',
      libc: 'musl',
    });
    assert.equal(describeBinary(new TextEncoder().encode('MZ is how this text starts, '.repeat(4))), undefined);
    assert.equal(describeBinary(new Uint8Array(readFileSync(join(ROOT, 'package.json')))), undefined);
  });

  it("refuses another target's binary and a missing one", async () => {
    const { checkNativeFiles } = await load();
    const ok = checkNativeFiles('win32-arm64', [{ path: 'a.node', bytes: pe(0xaa64) }]);
    assert.deepEqual(ok.errors, []);
    const wrongCpu = checkNativeFiles('win32-arm64', [{ path: 'a.node', bytes: pe(0x8664) }]);
    assert.match(wrongCpu.errors.join(), /a\.node: pe x64, not win32-arm64/);
    const wrongLibc = checkNativeFiles('linux-x64', [{ path: 'b.node', bytes: elf(0x3e, ['libc.so']) }]);
    assert.match(wrongLibc.errors.join(), /elf x64 musl, not linux-x64/);
    const extra = checkNativeFiles('darwin-arm64', [
      { path: 'a.node', bytes: macho(0x0100000c) },
      { path: 'renamed.txt', bytes: macho(0x01000007) },
    ]);
    assert.match(extra.errors.join(), /renamed\.txt: macho x64/);
    const none = checkNativeFiles('linux-arm64', [{ path: 'x.js', bytes: new Uint8Array(100) }]);
    assert.match(none.errors.join(), /no native binary/);
  });
});

describe('a VSIX per target (npm run package:all)', function () {
  // Builds every target once: one production build, then vsce per target (about 30 s each here).
  this.timeout(15 * 60_000);
  let out = '';
  let packaged: SpawnSyncReturns<string>;
  let seconds = 0;

  before(() => {
    out = tempDir('vsix-targets-');
    const t0 = Date.now();
    packaged = spawnSync(process.execPath, [join(ROOT, 'scripts', 'package-vsix.mjs'), '--all', '--out-dir', out], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    seconds = (Date.now() - t0) / 1000;
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('packages every target and prints its table', () => {
    assert.equal(packaged.status, 0, `${packaged.stdout}\n${packaged.stderr}`);
    const table = packaged.stdout;
    for (const target of Object.keys(EXPECTED)) assert.match(table, new RegExp(`\\[package\\] ${target} +[\\d.]+ MB`));
    process.stdout.write(`      (package:all took ${seconds.toFixed(0)} s)\n`);
  });

  for (const [target, want] of Object.entries(EXPECTED)) {
    it(`${target}: exactly its own native binaries, ≤ 30 MB, with the icon`, async () => {
      const file = join(out, readdirSync(out).find((f) => f.endsWith(`-${target}.vsix`)) ?? `missing-${target}`);
      assert.ok(statSync(file).size <= 30 * 1024 * 1024, `${file} is ${statSync(file).size} bytes`);
      const zip = new Uint8Array(readFileSync(file));
      const { describeBinary } = await load();
      const entries = unzipSync(zip);
      const natives = Object.entries(entries)
        .map(([path, bytes]) => ({ path, kind: describeBinary(bytes) }))
        .filter((n) => n.kind);
      const kind = { format: want.format, cpu: want.cpu, ...(want.libc ? { libc: want.libc } : {}) };
      assert.deepEqual(
        natives.map((n) => [n.path.split('/').pop(), n.kind]).sort(),
        [want.file, ...(want.fsrs ? [want.fsrs] : [])].sort().map((f) => [f, kind]),
      );
      assert.match(
        new TextDecoder().decode(entries['extension.vsixmanifest']),
        new RegExp(`TargetPlatform="${target}"`),
      );
      const icon = entries['extension/media/icon.png'];
      assert.ok(icon, 'media/icon.png is in the VSIX');
      // PNG signature, then IHDR width and height.
      assert.deepEqual([...icon.subarray(1, 4)], [0x50, 0x4e, 0x47]);
      const ihdr = new DataView(icon.buffer, icon.byteOffset + 16, 8);
      assert.deepEqual([ihdr.getUint32(0), ihdr.getUint32(4)], [128, 128]);
    });
  }
});
