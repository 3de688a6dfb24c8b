/**
 * A value already serialised: the answer writer (api/http/jsonBody.ts) puts its text into a long array's JSON as
 * it is, so a part made once (a kept /due card) is not serialised again per answer. Anything else that
 * serialises it (JSON.stringify, a short answer left to koa) reads it through toJSON: the same JSON, parsed first.
 */
export class RawJson {
  constructor(readonly json: string) {}

  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}
