// The VSIX targets and the native-binary check they share (scripts/package-vsix.mjs and test/unit/vsixTargets.test.ts).
// A native file is recognised by its header, never by its name: PE (Windows), Mach-O (macOS), ELF (Linux).

/** VS Code's platform targets we ship, with the npm platform triple that selects their native packages. */
export const TARGETS = {
  'win32-x64': { os: 'win32', cpu: 'x64', format: 'pe' },
  'win32-arm64': { os: 'win32', cpu: 'arm64', format: 'pe' },
  'darwin-x64': { os: 'darwin', cpu: 'x64', format: 'macho' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64', format: 'macho' },
  'linux-x64': { os: 'linux', cpu: 'x64', libc: 'glibc', format: 'elf' },
  'linux-arm64': { os: 'linux', cpu: 'arm64', libc: 'glibc', format: 'elf' },
  'alpine-x64': { os: 'linux', cpu: 'x64', libc: 'musl', format: 'elf' },
};

/** The target this machine runs (alpine-* where Node is built against musl). */
export function hostTarget() {
  const musl = process.platform === 'linux' && !process.report?.getReport?.().header?.glibcVersionRuntime;
  return `${musl ? 'alpine' : process.platform}-${process.arch}`;
}

const PE_MACHINES = { 0x8664: 'x64', 0xaa64: 'arm64', 0x14c: 'ia32', 0x1c4: 'arm' };
const MACHO_CPUS = { 0x01000007: 'x64', 0x0100000c: 'arm64', 7: 'ia32', 12: 'arm' };
const ELF_MACHINES = { 0x3e: 'x64', 0xb7: 'arm64', 0x03: 'ia32', 0x28: 'arm', 0xf3: 'riscv64' };

/**
 * What a file's header says it is: `{ format, cpu, libc? }`, or undefined when it is no native binary.
 * @param {Uint8Array} bytes the whole file (ELF libc needs its dynamic section)
 */
export function describeBinary(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 64) return undefined;
  if (bytes[0] === 0x4d && bytes[1] === 0x5a) {
    const pe = view.getUint32(0x3c, true);
    if (pe + 6 > bytes.length || view.getUint32(pe, false) !== 0x50450000) return undefined;
    const machine = view.getUint16(pe + 4, true);
    return { format: 'pe', cpu: PE_MACHINES[machine] ?? `0x${machine.toString(16)}` };
  }
  const magic = view.getUint32(0, false);
  if (magic === 0xcffaedfe || magic === 0xcefaedfe) {
    const cpu = view.getUint32(4, true);
    return { format: 'macho', cpu: MACHO_CPUS[cpu] ?? `0x${cpu.toString(16)}` };
  }
  // A universal (fat) Mach-O carries several CPUs: never one target's binary alone.
  if (magic === 0xcafebabe && view.getUint32(4, false) < 20) return { format: 'macho', cpu: 'universal' };
  if (magic === 0x7f454c46) return describeElf(bytes, view);
  return undefined;
}

/** ELF64 little-endian (every target we ship): machine, and libc from PT_INTERP or DT_NEEDED. */
function describeElf(bytes, view) {
  const machine = view.getUint16(0x12, true);
  const cpu = ELF_MACHINES[machine] ?? `0x${machine.toString(16)}`;
  if (bytes[4] !== 2 || bytes[5] !== 1) return { format: 'elf', cpu, libc: 'unknown' };
  const phoff = Number(view.getBigUint64(0x20, true));
  const phentsize = view.getUint16(0x36, true);
  const phnum = view.getUint16(0x38, true);
  const loads = [];
  const names = [];
  let dynamic;
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    const type = view.getUint32(at, true);
    const offset = Number(view.getBigUint64(at + 8, true));
    const vaddr = Number(view.getBigUint64(at + 16, true));
    const filesz = Number(view.getBigUint64(at + 32, true));
    if (type === 1) loads.push({ offset, vaddr, filesz });
    if (type === 2) dynamic = { offset, filesz };
    if (type === 3) names.push(cString(bytes, offset));
  }
  if (dynamic) {
    const needed = [];
    let strtab;
    for (let at = dynamic.offset; at + 16 <= dynamic.offset + dynamic.filesz; at += 16) {
      const tag = Number(view.getBigUint64(at, true));
      const val = Number(view.getBigUint64(at + 8, true));
      if (tag === 0) break;
      if (tag === 1) needed.push(val);
      if (tag === 5) strtab = val;
    }
    const seg = strtab === undefined ? undefined : loads.find((l) => strtab >= l.vaddr && strtab < l.vaddr + l.filesz);
    if (seg) for (const n of needed) names.push(cString(bytes, strtab - seg.vaddr + seg.offset + n));
  }
  // musl's C library is `libc.so` (its loader ld-musl-*); glibc's is `libc.so.6` (loader ld-linux-*).
  const libc = names.some((n) => /ld-musl|libc\.musl|^libc\.so$/.test(n))
    ? 'musl'
    : names.some((n) => /^libc\.so\.6$|ld-linux/.test(n))
      ? 'glibc'
      : 'unknown';
  return { format: 'elf', cpu, libc };
}

function cString(bytes, at) {
  let end = at;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return new TextDecoder().decode(bytes.subarray(at, end));
}

/**
 * Problems with a target's native files: one of another target, or none at all.
 * @param {string} target a key of TARGETS
 * @param {{ path: string, bytes: Uint8Array }[]} files every file of the VSIX (non-native ones are skipped)
 * @returns {{ natives: { path: string, format: string, cpu: string, libc?: string }[], errors: string[] }}
 */
export function checkNativeFiles(target, files) {
  const want = TARGETS[target];
  if (!want) return { natives: [], errors: [`unknown target ${target}`] };
  const natives = [];
  const errors = [];
  for (const { path, bytes } of files) {
    const found = describeBinary(bytes);
    if (!found) continue;
    natives.push({ path, ...found });
    const ok =
      found.format === want.format && found.cpu === want.cpu && (want.format !== 'elf' || found.libc === want.libc);
    if (!ok)
      errors.push(
        `${path}: ${found.format} ${found.cpu}${found.libc ? ` ${found.libc}` : ''}, not ${target} (${want.format} ${want.cpu}${want.libc ? ` ${want.libc}` : ''})`,
      );
  }
  if (!natives.length) errors.push(`${target}: no native binary (the canvas module of ${target} is missing)`);
  return { natives, errors };
}

/**
 * Opens a VSIX (a zip) and checks the native files it carries against its target.
 * @param {Uint8Array} zip the VSIX's bytes
 * @param {string} target a key of TARGETS
 */
export async function inspectVsix(zip, target) {
  const { unzipSync } = await import('fflate');
  const entries = unzipSync(zip);
  const files = Object.entries(entries).map(([path, bytes]) => ({ path, bytes }));
  return { ...checkNativeFiles(target, files), fileCount: files.length };
}
