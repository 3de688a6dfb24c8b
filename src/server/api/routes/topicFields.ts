import { z } from 'zod';

/** Title of a study set or deck. */
export const topicTitle = z.string().trim().min(1, 'title must not be empty').max(200);

/** `?query=` of the study-set and deck lists: a case-insensitive title filter. */
export const titleFilter = z.object({ query: z.string().max(200).optional() });
