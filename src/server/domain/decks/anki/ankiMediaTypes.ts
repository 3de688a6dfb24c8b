/**
 * Picture types of Anki media by file extension, both ways: an import names an
 * image part's type from the file's name, an export names a part's file from
 * its type.
 */
const MIME_BY_EXT: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
};

const EXT_BY_MIME: Readonly<Record<string, string>> = Object.fromEntries(
  // jpeg's first extension (jpg) names its files.
  Object.entries(MIME_BY_EXT)
    .reverse()
    .map(([ext, mime]) => [mime, ext]),
);

/** The type of a media file by its name's extension (application/octet-stream when not a picture's). */
export const mimeOfName = (name: string) =>
  MIME_BY_EXT[name.split('.').pop()!.toLowerCase()] ?? 'application/octet-stream';

/** The extension a file of this type is named with (png when the type is not a picture's we name). */
export const extOfMime = (mime: string | null | undefined) => EXT_BY_MIME[mime ?? ''] ?? 'png';
