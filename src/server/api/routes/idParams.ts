import { z } from 'zod';
import { UUID_PATTERN } from '../../domain/library/ids';

/** A study-set, deck or note id: a UUID, normalised to upper case. Document ids (bookmd5) are refused. */
export const uuidParam = (what: string) =>
  z
    .string()
    .regex(UUID_PATTERN, `${what} must be a UUID; documents are addressed by bookmd5, not by this id`)
    .transform((s) => s.toUpperCase());

export const topicId = uuidParam('topicid');

export const EXAMPLE_UUID = '00000000-0000-4000-8000-000000000000';
