export function checkNode(version: string): { level: 'ok' | 'warn' | 'refuse'; message: string };
export function enforce(): void;
