import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import {
  CJK_FONT_ENV,
  cjkFontFile,
  cjkPrintFontFile,
  hasTrueTypeOutlines,
  needsCjkFont,
} from '../../src/server/domain/cards/cjkFontFile';

describe('the CJK font of renders and prints', () => {
  it('finds one on this machine (CI installs fonts-noto-cjk)', () => {
    const f = cjkFontFile({});
    assert.ok(f && existsSync(f), String(f));
    assert.match(f, /CJK|wqy|Droid|PingFang|Hiragino|msyh|simsun|Gothic/i);
  });
  it(`${CJK_FONT_ENV}=none acts as a machine without one; a missing file counts as none`, () => {
    assert.equal(cjkFontFile({ [CJK_FONT_ENV]: 'none' }), null);
    assert.equal(cjkFontFile({ [CJK_FONT_ENV]: '/nonexistent/font.ttc' }), null);
    const real = cjkFontFile({})!;
    assert.equal(cjkFontFile({ [CJK_FONT_ENV]: real }), real);
  });
  it('needs the font for Han, kana, Hangul and CJK punctuation only', () => {
    for (const s of ['光合作用', 'ミトコンドリア', '광합성', '。']) assert.equal(needsCjkFont(s), true, s);
    for (const s of ['Eigenvalues', 'Größe', 'λ → ∞']) assert.equal(needsCjkFont(s), false, s);
  });
  it('print takes only a TrueType-outline font (pdf-lib cannot subset CFF): Noto CJK (OTTO) no, WenQuanYi (glyf) yes', () => {
    // CI installs both (fonts-noto-cjk, fonts-wqy-microhei).
    assert.equal(hasTrueTypeOutlines('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc'), false);
    assert.equal(hasTrueTypeOutlines('/usr/share/fonts/truetype/wqy/wqy-microhei.ttc'), true);
    assert.equal(hasTrueTypeOutlines('/nonexistent.ttf'), false);
    const f = cjkPrintFontFile({});
    assert.ok(f && hasTrueTypeOutlines(f), String(f));
    assert.equal(
      cjkPrintFontFile({ [CJK_FONT_ENV]: '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc' }),
      null,
      'a forced CFF font is not embedded',
    );
  });
});
