# Converts an NTv2 grid (.gsb) into a GeoTIFF grid as PROJ >= 7 reads them (PROJ's "Geodetic TIFF Grids": band
# descriptions latitude_offset / longitude_offset in arc-seconds, TYPE=HORIZONTAL_OFFSET, nodes as pixel centres),
# with GDAL's Python bindings. Usage: ntv2_to_geotiff.py IN.gsb OUT.tif
import sys
from osgeo import gdal, osr

src = gdal.Open(sys.argv[1])
out = gdal.GetDriverByName('GTiff').Create(sys.argv[2], src.RasterXSize, src.RasterYSize, 2, gdal.GDT_Float32)
out.SetGeoTransform(src.GetGeoTransform())
srs = osr.SpatialReference()
srs.SetWellKnownGeogCS('EPSG:4314')  # the grid's source CRS (DHDN for BETA2007)
out.SetProjection(srs.ExportToWkt())
out.SetMetadata({'TYPE': 'HORIZONTAL_OFFSET', 'AREA_OR_POINT': 'Point'})
for i, name in enumerate(['latitude_offset', 'longitude_offset'], start=1):
    band = out.GetRasterBand(i)
    band.WriteArray(src.GetRasterBand(i).ReadAsArray())
    band.SetDescription(name)
    band.SetUnitType('arc-second')
    if name == 'longitude_offset':
        band.SetMetadataItem('positive_value', 'west')  # NTv2's convention, kept rather than negated
out = None
