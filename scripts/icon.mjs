// The Marketplace icon (128×128 PNG), drawn at package time from media/study-bridge.svg: the same open book as the
// activity bar, white on a rounded blue tile so it reads on light and dark galleries. @napi-rs/canvas (already a
// dependency) rasterises SVG, so no other tool is needed.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const SIZE = 128;

/** The icon's SVG: the source's drawing inside a tile, `currentColor` replaced by white. */
export function iconSvg(source) {
  const inner = source.replace(/^[\s\S]*?<svg[^>]*>/, '').replace(/<\/svg>\s*$/, '');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}" viewBox="0 0 24 24">` +
    '<rect width="24" height="24" rx="5" fill="#2F5FB3"/>' +
    '<g transform="translate(2.4 2.4) scale(0.8)" fill="none" stroke="#FFFFFF" stroke-width="1.5" ' +
    `stroke-linecap="round" stroke-linejoin="round">${inner}</g></svg>`
  );
}

/** PNG bytes of the icon drawn from the SVG file at `svgPath`. */
export function renderIcon(svgPath, fromDir) {
  const { createCanvas, Image } = createRequire(`${fromDir}/`)('@napi-rs/canvas');
  const img = new Image();
  img.src = Buffer.from(iconSvg(readFileSync(svgPath, 'utf8')));
  if (img.width !== SIZE || img.height !== SIZE)
    throw new Error(`icon: the SVG did not load (${img.width}×${img.height})`);
  const canvas = createCanvas(SIZE, SIZE);
  canvas.getContext('2d').drawImage(img, 0, 0, SIZE, SIZE);
  return canvas.toBuffer('image/png');
}
