// WMS service exception reports (OGC 06-042 §7.3.3 and Annex E for 1.3.0; OGC 01-068r3 §7.3.3 and its
// exception DTD for 1.1.1). Pure: an exception in, XML text out. The codes are the standard's (06-042 Table E.1,
// 01-068r3 Annex A.3), 1.1.1 naming the CRS "SRS".

import { XMLBuilder } from 'fast-xml-parser';

export type WmsVersion = '1.1.1' | '1.3.0';

export type WmsExceptionCode =
  | 'InvalidFormat'
  | 'InvalidCRS'
  | 'InvalidSRS'
  | 'LayerNotDefined'
  | 'StyleNotDefined'
  | 'LayerNotQueryable'
  | 'InvalidPoint'
  | 'CurrentUpdateSequence'
  | 'InvalidUpdateSequence'
  | 'MissingDimensionValue'
  | 'InvalidDimensionValue'
  | 'OperationNotSupported'
  // Not a code of the standard: a parameter missing or malformed (the standard leaves such a report without a code).
  | 'MissingParameterValue'
  | 'InvalidParameterValue';

export interface WmsException {
  code: WmsExceptionCode;
  text: string;
}

/** How a request wants its exceptions (EXCEPTIONS): a report, the text drawn in an image, or a blank image. */
export type WmsExceptionFormat = 'xml' | 'inimage' | 'blank';

/** The EXCEPTIONS values of each version (06-042 §7.3.3.11, 01-068r3 §7.2.3.9) and what they mean here. */
export const WMS_EXCEPTION_FORMATS: Readonly<Record<WmsVersion, Readonly<Record<string, WmsExceptionFormat>>>> = {
  '1.3.0': { XML: 'xml', INIMAGE: 'inimage', BLANK: 'blank' },
  '1.1.1': { 'application/vnd.ogc.se_xml': 'xml', 'application/vnd.ogc.se_inimage': 'inimage', 'application/vnd.ogc.se_blank': 'blank' },
};

/** The media type of each version's report. */
export const WMS_EXCEPTION_TYPE: Readonly<Record<WmsVersion, string>> = {
  '1.3.0': 'text/xml; charset=utf-8',
  '1.1.1': 'application/vnd.ogc.se_xml; charset=utf-8',
};

/** The code as `version` names it (1.1.1 says SRS where 1.3.0 says CRS). */
export function versionCode(code: WmsExceptionCode, version: WmsVersion): string {
  if (version === '1.1.1' && code === 'InvalidCRS') return 'InvalidSRS';
  if (version === '1.3.0' && code === 'InvalidSRS') return 'InvalidCRS';
  return code;
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', textNodeName: '#text', format: true, suppressEmptyNode: true });

/** A ServiceExceptionReport of one exception (without a code: an error the standard names none for), in `version`'s form. */
export function buildWmsExceptionReport(e: { code?: WmsExceptionCode; text: string }, version: WmsVersion): string {
  const exception = { ...(e.code && { '@code': versionCode(e.code, version) }), '#text': e.text };
  if (version === '1.1.1') {
    return (
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<!DOCTYPE ServiceExceptionReport SYSTEM "http://schemas.opengis.net/wms/1.1.1/exception_1_1_1.dtd">\n' +
      builder.build({ ServiceExceptionReport: { '@version': '1.1.1', ServiceException: exception } })
    );
  }
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    builder.build({
      ServiceExceptionReport: {
        '@version': '1.3.0',
        '@xmlns': 'http://www.opengis.net/ogc',
        '@xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
        '@xsi:schemaLocation': 'http://www.opengis.net/ogc http://schemas.opengis.net/wms/1.3.0/exceptions_1_3_0.xsd',
        ServiceException: exception,
      },
    })
  );
}
