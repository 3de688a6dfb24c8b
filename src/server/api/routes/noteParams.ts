import { z } from 'zod';
import { uuidParam } from './idParams';

/** A card id in a path or body. */
export const noteId = uuidParam('noteid');

/** A list of card ids, 1..max (the contract's batch limits: 200 for batch-get/hashtags/metadata/fold, 50 for move/copy/delete). */
export const noteIdList = (max: number) =>
  z
    .array(noteId)
    .min(1, 'noteIds must name at least one card')
    .max(max, `at most ${max} cards per call; split the batch`);

export const colorIndex = z.number().int().min(0).max(15);
export const fillIndex = z.number().int().min(-1).max(2);
