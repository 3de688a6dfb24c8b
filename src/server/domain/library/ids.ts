import { randomUUID } from 'node:crypto';

/** topicid, deck, note, bundle and snapshot ids: uppercase UUIDs (docs/CONTRACT-CHOICES.md, "Ids"). */
export const newId = () => randomUUID().toUpperCase();

export const UUID_PATTERN = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/i;

export const nowIso = () => new Date().toISOString();
