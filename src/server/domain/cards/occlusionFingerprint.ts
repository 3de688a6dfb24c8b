import { createHash } from 'node:crypto';
import type { CardContent, OcclusionMask } from './cardImages';

/**
 * Fingerprints that let an occlusion write prove it was planned against the
 * picture and masks still there: the source is the page region (book, page,
 * rectangle) or the stored image bytes; the masks are their canonical list.
 */

const hash = (...parts: Array<string | Uint8Array>) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\n');
  return h.digest('hex').slice(0, 32);
};

export function sourceFingerprint(part: CardContent): string {
  if (part.region) {
    const { bookmd5, page, rect } = part.region;
    return hash('pdf', bookmd5, String(page), [rect.x, rect.y, rect.width, rect.height].map(String).join(','));
  }
  return part.row?.blob ? hash('blob', part.row.blob) : hash('part', part.contentId);
}

export function maskFingerprint(masks: readonly OcclusionMask[]): string {
  const canonical = [...masks]
    .sort((a, b) => a.index - b.index)
    .map((m) => [
      m.index,
      m.rect.x,
      m.rect.y,
      m.rect.width,
      m.rect.height,
      m.group ?? null,
      m.flags ?? null,
      m.isText ?? false,
    ]);
  return hash('masks', JSON.stringify(canonical));
}
