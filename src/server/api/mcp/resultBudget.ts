/**
 * study_call's byte budget: a text answer over `maxBytes` is sent cut at a
 * whole item, followed by a second text block saying so — `truncated:true`
 * and `next`, the study_call arguments that fetch the rest (continuation.ts
 * says which). Both blocks together stay within the budget.
 */
import { BridgeError, invalidInput } from '../../errors';
import type { RouteDecl } from '../http/routeTable';
import { nextCall, type CallCursor, type CallShape } from './continuation';
import { holdAnswer } from './heldResults';
import { cutJson, shorten, streamFields, streamLength, type JsonCut } from './jsonCut';
import { DEFAULT_RESULT_BYTES, IMAGE_MAX_PX_RANGE, MAX_RESULT_BYTES, MIN_RESULT_BYTES } from './mcpBudget';

type Text = { type: 'text'; text: string };

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** The budget arguments, checked before anything runs. */
export function checkBudgetArgs(args: { maxBytes?: number; imageMaxPx?: number; cursor?: CallCursor }): void {
  const { maxBytes, imageMaxPx, cursor } = args;
  if (
    maxBytes !== undefined &&
    !(Number.isInteger(maxBytes) && maxBytes >= MIN_RESULT_BYTES && maxBytes <= MAX_RESULT_BYTES)
  ) {
    throw invalidInput(
      `maxBytes must be an integer ${MIN_RESULT_BYTES}–${MAX_RESULT_BYTES} (default ${DEFAULT_RESULT_BYTES}); got ${JSON.stringify(maxBytes)}. Nothing was run.`,
      { field: 'maxBytes', min: MIN_RESULT_BYTES, max: MAX_RESULT_BYTES },
      'INVALID_MAX_BYTES',
    );
  }
  const [lo, hi] = IMAGE_MAX_PX_RANGE;
  if (imageMaxPx !== undefined && !(Number.isInteger(imageMaxPx) && imageMaxPx >= lo && imageMaxPx <= hi)) {
    throw invalidInput(
      `imageMaxPx must be an integer ${lo}–${hi}; got ${JSON.stringify(imageMaxPx)}. Nothing was run.`,
      { field: 'imageMaxPx', min: lo, max: hi },
      'INVALID_IMAGE_MAX_PX',
    );
  }
  if (cursor !== undefined && !(Number.isInteger(cursor.from) && cursor.from >= 0)) {
    throw invalidInput(
      "cursor.from must be an integer ≥ 0, as a previous answer's next gave it. Nothing was run.",
      { field: 'cursor' },
      'INVALID_CURSOR',
    );
  }
}

export interface BudgetInput {
  route: RouteDecl | undefined;
  args: CallShape & { cursor?: CallCursor };
  /** The answer: parsed JSON, or text (Markdown, OPML, a non-JSON error). */
  answer: Record<string, unknown> | string;
  /** The answer's text as it came (sent unchanged when it fits and no cursor applies). */
  text: string;
  /** A continuation may run the call again (it only reads). */
  rerunnable: boolean;
  /** Who may read a held answer: the caller's token identity. */
  holder: string;
}

/** The result's text blocks: the (cut) answer, and when a cursor applied or anything was cut, a note of it. */
export function budgetAnswer(input: BudgetInput): Text[] {
  const { args, answer } = input;
  const budget = args.maxBytes ?? DEFAULT_RESULT_BYTES;
  if (!args.cursor && bytes(input.text) <= budget) return [{ type: 'text', text: input.text }];
  let heldId = args.cursor?.held;
  // Two rounds at most: the note's own size is known only once the cut is.
  // A write's next never repeats its body (continuation.ts).
  const echoed = input.rerunnable ? args : { ...args, body: undefined };
  let room = budget - 400 - bytes(JSON.stringify(echoed));
  for (let round = 0; round < 4; round++) {
    const cut = typeof answer === 'string' ? cutText(answer, room, args.cursor) : cutAnswer(answer, room, args.cursor);
    let next: ReturnType<typeof nextCall> | undefined;
    if (cut.rest) {
      if (!heldId && !input.rerunnable)
        heldId = holdAnswer(input.holder, typeof answer === 'string' ? { $text: answer } : answer, bytes(input.text));
      next = nextCall(input.route, args, typeof answer === 'string' ? undefined : answer, cut.rest, heldId);
    }
    const note = {
      truncated: !!cut.rest,
      ...(cut.sent.length ? { sent: cut.sent } : {}),
      ...(cut.shortened.length
        ? {
            shortened: cut.shortened,
            shortenedHint: `Items over the budget on their own were sent with their longest strings cut; maxBytes up to ${MAX_RESULT_BYTES}, or the HTTP route, gives them whole.`,
          }
        : {}),
      ...(next ? { next, nextHint: 'Call study_call with next as its arguments for the rest.' } : {}),
    };
    const noteText = JSON.stringify(note);
    const over = bytes(cut.text) + bytes(noteText) - budget;
    if (over <= 0)
      return [
        { type: 'text', text: cut.text },
        { type: 'text', text: noteText },
      ];
    room -= over + 16;
  }
  throw new BridgeError(
    'MCP_BUDGET_UNREACHABLE',
    422,
    `The answer cannot be cut to ${budget} bytes with its continuation note: raise maxBytes (up to ${MAX_RESULT_BYTES}).`,
    { maxBytes: budget },
  );
}

interface Cut {
  text: string;
  rest?: CallCursor;
  sent: JsonCut['sent'] | Array<{ from: number; count: number; of: number }>;
  shortened: JsonCut['shortened'];
}

function cutAnswer(answer: Record<string, unknown>, room: number, cursor?: CallCursor): Cut {
  if (cursor) {
    const fields = streamFields(answer);
    if (
      cursor.field === undefined ||
      !fields.includes(cursor.field) ||
      cursor.from > streamLength(answer, cursor.field)
    ) {
      throw invalidInput(
        `This cursor does not fit the answer (its arrays: ${fields.join(', ') || 'none'}): pass next exactly as a previous answer gave it.`,
        { field: 'cursor', arrays: fields },
        'INVALID_CURSOR',
      );
    }
  }
  const cut = cutJson(
    answer,
    room,
    cursor?.field === undefined ? undefined : { field: cursor.field, from: cursor.from },
  );
  if (cut) return cut;
  // Even the answer without its arrays' items is over the budget (one long string field): sent shortened, whole.
  return {
    text: JSON.stringify(shorten(answer, room)),
    sent: [],
    shortened: [{ field: '', index: 0, fullBytes: bytes(JSON.stringify(answer)) }],
  };
}

/** A text answer cut at a line end (or, for one very long line, a character) within `room` bytes; the cursor is a character offset. */
function cutText(text: string, room: number, cursor?: CallCursor): Cut {
  if (cursor && (cursor.field !== undefined || cursor.from > text.length)) {
    throw invalidInput(
      'This cursor does not fit the text answer: pass next exactly as a previous answer gave it.',
      { field: 'cursor' },
      'INVALID_CURSOR',
    );
  }
  const from = cursor?.from ?? 0;
  const rest = text.slice(from);
  const encoded = Buffer.from(rest, 'utf8');
  if (encoded.length <= room)
    return { text: rest, sent: [{ from, count: rest.length, of: text.length }], shortened: [] };
  // Characters that fit in `room` bytes, not ending inside a surrogate pair.
  let end = encoded
    .subarray(0, Math.max(0, room))
    .toString('utf8')
    .replace(/\uFFFD$/, '').length;
  if (end > 0 && rest.charCodeAt(end - 1) >= 0xd800 && rest.charCodeAt(end - 1) <= 0xdbff) end--;
  const line = rest.lastIndexOf('\n', end - 1);
  if (line > 0) end = line + 1;
  end = Math.max(end, 1);
  return {
    text: rest.slice(0, end),
    rest: { from: from + end },
    sent: [{ from, count: end, of: text.length }],
    shortened: [],
  };
}
