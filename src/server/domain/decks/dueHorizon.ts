/**
 * `until` of GET /decks/{id}/due: an ISO date means "by the end of that day"
 * (the bridge's local day, as "today" is), a date-time that instant. Pure, so
 * the route can validate with it and the deck service can use it.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** The last instant `until` covers, or undefined when it is not an ISO date or date-time (or names no real day). */
export function dueHorizon(until: string): Date | undefined {
  const d = DATE.exec(until);
  if (d) {
    const [y, m, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
    const start = new Date(y, m - 1, day);
    // 2026-02-30 would roll over into March: not a day.
    if (start.getFullYear() !== y || start.getMonth() !== m - 1 || start.getDate() !== day) return undefined;
    return new Date(new Date(y, m - 1, day + 1).getTime() - 1);
  }
  if (!DATE_TIME.test(until)) return undefined;
  const t = Date.parse(until);
  const [y, m, day] = until.slice(0, 10).split('-').map(Number);
  if (Number.isNaN(t) || m < 1 || m > 12 || day < 1 || day > new Date(Date.UTC(y, m, 0)).getUTCDate()) return undefined;
  return new Date(t);
}
