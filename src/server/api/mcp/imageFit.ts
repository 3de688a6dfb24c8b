import { nativeCanvas } from '../../ground/pdf/nativeCanvas';
/**
 * Images a route answers reach an MCP client as image content no larger than
 * a vision model takes in without downscaling it itself (1568 px on the long
 * edge by default): fewer bytes in the agent's context, same detail it sees.
 */
export interface FittedImage {
  data: Buffer;
  mimeType: string;
  /** Set when the image was scaled: its size before and after. */
  scaled?: { from: [number, number]; to: [number, number] };
}

const ENCODABLE: Record<string, 'png' | 'jpeg' | 'webp'> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
};

/** The image within `maxPx` on its long edge: unchanged if it already is (or cannot be decoded), else scaled down. */
export async function fitImage(bytes: Buffer, mimeType: string, maxPx: number): Promise<FittedImage> {
  const { createCanvas, loadImage } = nativeCanvas();
  let img: Awaited<ReturnType<typeof loadImage>>;
  try {
    img = await loadImage(bytes);
  } catch {
    // Not a raster the canvas reads (an SVG, a broken file): passed on as the route sent it.
    return { data: bytes, mimeType };
  }
  const long = Math.max(img.width, img.height);
  if (long <= maxPx) return { data: bytes, mimeType };
  const scale = maxPx / long;
  const w = Math.max(1, Math.round(img.width * scale));
  const h = Math.max(1, Math.round(img.height * scale));
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(img, 0, 0, w, h);
  const format = ENCODABLE[mimeType] ?? 'png';
  const data = format === 'png' ? await canvas.encode('png') : await canvas.encode(format, 90);
  return { data, mimeType: `image/${format}`, scaled: { from: [img.width, img.height], to: [w, h] } };
}
