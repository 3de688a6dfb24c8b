// Types of nativeTargets.mjs for the TypeScript tests.
export interface TargetSpec {
  os: 'win32' | 'darwin' | 'linux';
  cpu: 'x64' | 'arm64';
  libc?: 'glibc' | 'musl';
  format: 'pe' | 'macho' | 'elf';
}
export interface BinaryKind {
  format: 'pe' | 'macho' | 'elf';
  cpu: string;
  libc?: string;
}
export interface NativeCheck {
  natives: (BinaryKind & { path: string })[];
  errors: string[];
}
export const TARGETS: Record<string, TargetSpec>;
export function hostTarget(): string;
export function describeBinary(bytes: Uint8Array): BinaryKind | undefined;
export function checkNativeFiles(target: string, files: { path: string; bytes: Uint8Array }[]): NativeCheck;
export function inspectVsix(zip: Uint8Array, target: string): Promise<NativeCheck & { fileCount: number }>;
