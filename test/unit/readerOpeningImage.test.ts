import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ReaderOpeningImages, renderScale } from '../../src/editors/readerOpeningImage';
import { readReaderPicture, trimPictures, writeReaderPicture } from '../../src/server/ground/cache/readerPictures';
import { openingStage } from '../../src/webviews/pdfReader/markup';
import { corpusFile } from './pdfCorpus';

// The reader's opening picture, without VS Code: rendered by a real pdf.js worker, cached per book in the data
// dir (private, one file replaced whole), and laid out by markup as pdf.js will lay out the page.

const MD5 = '0123456789abcdef0123456789abcdef';
const isWebp = (b: Buffer) =>
  b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP';

describe('The reader opening picture (real pdf.js worker, temp data dir)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let images: ReaderOpeningImages;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'sb-opening-'));
    images = new ReaderOpeningImages(() => dataDir);
  });
  afterEach(() => {
    images.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('renders the page, caches it privately, and answers it from the cache for that page only', async () => {
    assert.equal(images.cached(MD5, 3), undefined, 'nothing cached yet');
    const [a, b] = await Promise.all([
      images.render(MD5, corpusFile('asymptote.pdf'), 3, 2),
      images.render(MD5, corpusFile('asymptote.pdf'), 3, 2),
    ]);
    assert.ok(a && a === b, 'one render per book and page at a time');
    assert.ok(isWebp(a.webp));
    // asymptote.pdf is US Letter.
    assert.ok(Math.abs(a.widthPt - 612) < 1 && Math.abs(a.heightPt - 792) < 1, `${a.widthPt} × ${a.heightPt} pt`);
    const hit = images.cached(MD5, 3);
    assert.ok(hit && hit.webp.equals(a.webp) && hit.widthPt === a.widthPt && hit.heightPt === a.heightPt);
    assert.equal(images.cached(MD5, 4), undefined, 'another page is not the cached one');
    if (process.platform === 'linux') {
      // Its worker thread (still idle, alive) runs at nice 19: the picture takes only CPU nobody else wants.
      const nice = readdirSync('/proc/self/task').map((t) =>
        Number(readFileSync(`/proc/self/task/${t}/stat`, 'utf8').split(') ')[1].split(' ')[16]),
      );
      assert.ok(nice.includes(19) && nice.includes(0), `threads' nice values: ${nice}`);
    }
    const dir = path.join(dataDir, 'cache', 'reader-pages');
    assert.deepEqual(readdirSync(dir), [`${MD5}.page`], 'one file per book, no temp file left');
    if (process.platform !== 'win32') {
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(statSync(path.join(dir, `${MD5}.page`)).mode & 0o777, 0o600);
    }
  });

  it('past their byte budget, the pictures written longest ago go first; other files stay', () => {
    const dir = path.join(dataDir, 'cache', 'reader-pages');
    const md5s = ['a', 'b', 'c', 'd'].map((c) => c.repeat(32));
    md5s.forEach((md5, i) => {
      assert.ok(
        writeReaderPicture(dataDir, md5, { page: 1, widthPt: 612, heightPt: 792, webp: Buffer.alloc(1000, i) }),
      );
      utimesSync(path.join(dir, `${md5}.page`), 1_000 + i, 1_000 + i); // written in this order
    });
    writeFileSync(path.join(dir, 'notes.txt'), Buffer.alloc(5000));
    // Each file is 1000 bytes of PNG plus its header (~50 bytes): 2,200 bytes hold the newest two.
    trimPictures(dir, 2_200);
    assert.deepEqual(readdirSync(dir).sort(), [`${md5s[2]}.page`, `${md5s[3]}.page`, 'notes.txt']);
    assert.deepEqual(readReaderPicture(dataDir, md5s[3], 1)?.webp, Buffer.alloc(1000, 3));
    trimPictures(dir, 100_000);
    assert.equal(readdirSync(dir).length, 3, 'under budget: nothing goes');
  });

  it('a name that is not an MD5 is never cached nor read; a damaged file is a miss; a failed render is undefined', async () => {
    assert.equal(images.cached('../../etc/passwd', 1), undefined);
    assert.ok(await images.render('../x', corpusFile('asymptote.pdf'), 1, 2), 'rendered');
    assert.equal(readdirSync(dataDir).length, 0, 'but not stored');
    assert.equal(await images.render(MD5, path.join(dataDir, 'missing.pdf'), 1, 2), undefined);
    const dir = path.join(dataDir, 'cache', 'reader-pages');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${MD5}.page`), Buffer.from([200, 0, 0, 0, 123]));
    assert.equal(images.cached(MD5, 1), undefined);
    // A picture of an earlier version (a PNG, no format in its header) is a miss too: rendered again as WebP.
    const header = Buffer.from(JSON.stringify({ page: 1, widthPt: 612, heightPt: 792 }));
    writeFileSync(
      path.join(dir, `${MD5}.page`),
      Buffer.concat([Buffer.from([header.length, 0, 0, 0]), header, Buffer.from('\x89PNG')]),
    );
    assert.equal(images.cached(MD5, 1), undefined);
  });

  it('renders sharper for a larger zoom, at most 4 pixels per point', () => {
    assert.deepEqual(
      [renderScale('page-width'), renderScale(undefined), renderScale('1'), renderScale('2.25'), renderScale('9')],
      [2, 2, 2, 3, 4],
    );
  });

  it('lays the picture out as pdf.js lays out the page: fit-width by CSS, a numeric zoom at points × zoom × 4/3 rounded down', () => {
    const fit = openingStage({ page: 7, widthPt: 612, heightPt: 792, scale: null, src: 'data:image/png;base64,AAAA' });
    assert.match(fit, /class="fit-width"[^>]*data-page="7" width="61200" height="79200"/);
    const fixed = openingStage({ page: 2, widthPt: 612, heightPt: 792, scale: '1.1', src: 'blob:x"><script>' });
    assert.match(fixed, /class="fixed"[^>]*width="897" height="1161"/);
    assert.ok(!fixed.includes('"><script>'), 'the source cannot end the attribute');
    assert.ok(!/style=/.test(fit + fixed), 'no inline style (the CSP allows none)');
  });
});
