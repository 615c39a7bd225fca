// The sample font: Noto Sans Regular glyph ranges as they ship in tileserver-gl-styles (SDF glyph PBFs,
// 0-255.pbf ... 65280-65535.pbf). Stored as a normal font store, the same as a mirrored font.

import fs from 'node:fs';
import path from 'node:path';
import { GLYPH_RANGE_SIZE, glyphRangePath, MAX_GLYPH_START } from '../services/fonts/glyphs';

export const SAMPLE_FONT = 'Noto Sans Regular';

/** Noto Sans is under the SIL Open Font License 1.1; the glyph files come from tileserver-gl-styles. */
export const SAMPLE_FONT_ATTRIBUTION = 'Noto Sans (SIL Open Font License 1.1), glyphs from tileserver-gl-styles';

function fontDir(font: string): string {
  return path.join(path.dirname(require.resolve('tileserver-gl-styles/package.json')), 'fonts', font);
}

/** Every glyph range of a font shipped in tileserver-gl-styles, in range order: 256 documents. */
export function sampleGlyphRanges(font: string = SAMPLE_FONT): { path: string; data: Buffer }[] {
  const dir = fontDir(font);
  const out: { path: string; data: Buffer }[] = [];
  for (let start = 0; start <= MAX_GLYPH_START; start += GLYPH_RANGE_SIZE) {
    const name = glyphRangePath(start);
    out.push({ path: name, data: fs.readFileSync(path.join(dir, name)) });
  }
  return out;
}
