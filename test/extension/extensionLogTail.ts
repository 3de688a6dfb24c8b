import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The last lines of the extension's own log ("Study Bridge" output channel) in
 * each extension host, from the VS Code logs the runner copied: printed when a
 * check fails, so a CI log says what the extension did meanwhile.
 */
export function extensionLogTail(logsDir: string, lines = 30): string {
  if (!existsSync(logsDir)) return '';
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name === 'Study Bridge.log') found.push(path);
    }
  };
  walk(logsDir);
  return found
    .sort()
    .map((path) => {
      const tail = readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines);
      return `  --- ${relative(logsDir, path)} (last ${tail.length} lines)\n${tail.map((l) => `    ${l}`).join('\n')}\n`;
    })
    .join('');
}
