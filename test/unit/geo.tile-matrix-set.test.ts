import {
  CRS_3857,
  GOOGLE_WKSS_URI,
  WEB_MERCATOR_QUAD_URI,
  limits,
  tileSizeOfTmsId,
  tmsIdFor,
  webMercatorQuad,
  wmtsTmsIdFor,
} from '../../src/geo/tile-matrix-set';

describe('identifiers', () => {
  test('distinct per tile size', () => {
    expect(tmsIdFor(256)).toBe('WebMercatorQuad');
    expect(tmsIdFor(512)).toBe('WebMercatorQuad512');
    expect(wmtsTmsIdFor(256, 0, 5)).toBe('GoogleMapsCompatible256-z0-5');
    expect(wmtsTmsIdFor(512, 0, 22)).toBe('GoogleMapsCompatible512-z0-22');
    expect(() => tmsIdFor(300)).toThrow(RangeError);
  });
  test('tileSizeOfTmsId inverts', () => {
    expect(tileSizeOfTmsId('WebMercatorQuad')).toBe(256);
    expect(tileSizeOfTmsId('WebMercatorQuad512')).toBe(512);
    expect(tileSizeOfTmsId('WebMercatorQuad512-z0-5')).toBe(512);
    expect(tileSizeOfTmsId('WorldCRS84Quad')).toBeUndefined();
    expect(tileSizeOfTmsId('webmercatorquad')).toBeUndefined();
  });
});

describe('webMercatorQuad', () => {
  test('full 256 set is the registered one', () => {
    const tms = webMercatorQuad(256);
    expect(tms.id).toBe('WebMercatorQuad');
    expect(tms.uri).toBe(WEB_MERCATOR_QUAD_URI);
    expect(tms.crs).toBe(CRS_3857);
    expect(tms.wellKnownScaleSet).toBe(GOOGLE_WKSS_URI);
    expect(tms.tileMatrices).toHaveLength(25);
    expect(tms.tileMatrices[0]).toEqual({
      id: '0',
      zoom: 0,
      scaleDenominator: 559082264.0287178,
      cellSize: 156543.03392804097,
      pointOfOrigin: [-20037508.342789244, 20037508.342789244],
      tileWidth: 256,
      tileHeight: 256,
      matrixWidth: 1,
      matrixHeight: 1,
    });
    expect(tms.tileMatrices[24].matrixWidth).toBe(2 ** 24);
  });
  test('512 set has its own id, no well-known scale set', () => {
    const tms = webMercatorQuad(512);
    expect(tms.id).toBe('WebMercatorQuad512');
    expect(tms.uri).toMatch(/WebMercatorQuad512/);
    expect(tms.wellKnownScaleSet).toBeUndefined();
    expect(tms.tileMatrices[0].scaleDenominator).toBe(279541132.0143589);
    expect(tms.tileMatrices[0].tileWidth).toBe(512);
  });
  test('zoom-cut set', () => {
    const tms = webMercatorQuad(512, 2, 5);
    expect(tms.id).toBe('WebMercatorQuad512-z2-5');
    expect(tms.wmtsId).toBe('GoogleMapsCompatible512-z2-5');
    expect(tms.uri).toBeUndefined();
    expect(tms.tileMatrices.map((m) => m.id)).toEqual(['2', '3', '4', '5']);
    expect(tms.tileMatrices[0].matrixWidth).toBe(4);
  });
  test('rejects bad ranges', () => {
    expect(() => webMercatorQuad(256, 5, 2)).toThrow(RangeError);
    expect(() => webMercatorQuad(256, -1, 2)).toThrow(RangeError);
    expect(() => webMercatorQuad(256, 0, 31)).toThrow(RangeError);
  });
});

describe('limits', () => {
  test('Switzerland, zooms 7..8 only', () => {
    const tms = webMercatorQuad(256);
    expect(limits(tms, [5.9, 45.8, 10.5, 47.8], 7, 8)).toEqual([
      { tileMatrix: '7', minTileRow: 44, maxTileRow: 45, minTileCol: 66, maxTileCol: 67 },
      { tileMatrix: '8', minTileRow: 89, maxTileRow: 91, minTileCol: 132, maxTileCol: 135 },
    ]);
  });
  test('same tile indices for 512 px', () => {
    const a = limits(webMercatorQuad(256), [5.9, 45.8, 10.5, 47.8], 0, 10);
    const b = limits(webMercatorQuad(512), [5.9, 45.8, 10.5, 47.8], 0, 10);
    expect(b).toEqual(a);
    expect(a).toHaveLength(11);
  });
  test('only zooms the set holds', () => {
    expect(limits(webMercatorQuad(256, 3, 4), [-180, -85, 180, 85], 0, 10).map((l) => l.tileMatrix)).toEqual(['3', '4']);
  });
});
