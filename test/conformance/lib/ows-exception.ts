// The OWS 1.1 ExceptionReport (OGC 06-121r3 §8, owsExceptionReport.xsd) and what an error answer must carry: the
// HTTP status, an exceptionCode and locator from the tables of the standard (07-057r7 Tables 20-21 for
// GetCapabilities, 23-24 for GetTile; 06-121r3 Table 25). Schema validity is checked separately, in one xmllint run
// per test (xml-schema.ts validateAll).
import { XMLParser } from 'fast-xml-parser';
import { summary, type Answer } from './http';
import { OWS_EXCEPTION_XSD, validateAll } from './xml-schema';

const OWS_11 = 'http://www.opengis.net/ows/1.1';

export interface OwsException {
  code: string;
  locator?: string;
  texts: string[];
}

export interface ExceptionReport {
  namespace?: string;
  version?: string;
  exceptions: OwsException[];
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, parseAttributeValue: false, removeNSPrefix: false });

/** The ExceptionReport in `xml`, or undefined when the root element is not one. */
export function parseExceptionReport(xml: string): ExceptionReport | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const rootName = Object.keys(doc).find((k) => !k.startsWith('?'));
  if (!rootName || rootName.split(':').pop() !== 'ExceptionReport') return undefined;
  const root = doc[rootName] as Record<string, unknown>;
  const prefix = rootName.includes(':') ? rootName.split(':')[0] : '';
  const namespace = (prefix ? root[`@xmlns:${prefix}`] : root['@xmlns']) as string | undefined;
  const children = Object.entries(root).filter(([k]) => k.split(':').pop() === 'Exception').flatMap(([, v]) => (Array.isArray(v) ? v : [v]));
  const exceptions = children.map((e: Record<string, unknown>) => {
    const textKey = Object.keys(e).find((k) => k.split(':').pop() === 'ExceptionText');
    const texts = textKey ? ([] as unknown[]).concat(e[textKey]).map(String) : [];
    return { code: String(e['@exceptionCode'] ?? ''), locator: e['@locator'] === undefined ? undefined : String(e['@locator']), texts };
  });
  return { namespace, version: root['@version'] as string | undefined, exceptions };
}

export interface ExpectedException {
  /** The HTTP status, or the statuses allowed (RESTful errors: 400 or 404). */
  status: number | readonly number[];
  /** The exceptionCode, or the codes allowed. */
  code: string | readonly string[];
  /** The locator (compared case-insensitively, as parameter names are: 06-121r3 §11.5.2), null for none, undefined for any. */
  locator?: string | null;
}

/**
 * What is wrong with an error answer, one line per problem, each naming the request, what was expected and what came;
 * empty when it is right. Schema validity is not checked here.
 */
export function exceptionProblems(a: Answer, expected: ExpectedException, label: string): string[] {
  const statuses = ([] as number[]).concat(expected.status);
  const codes = ([] as string[]).concat(expected.code);
  const want = `HTTP ${statuses.join(' or ')} with an OWS 1.1 ExceptionReport, exceptionCode ${codes.join(' or ')}${
    expected.locator === null ? ', no locator' : expected.locator === undefined ? '' : `, locator ${expected.locator}`
  }`;
  const wrong = (why: string): string[] => [`${label}: expected ${want}; got ${summary(a)}${why ? ` (${why})` : ''}`];
  const xml = /^(application|text)\/xml$/.test(a.mediaType);
  const report = xml ? parseExceptionReport(a.body.toString('utf8')) : undefined;
  if (!report) return wrong(xml ? 'not an ExceptionReport' : 'not XML');
  const found = report.exceptions.map((e) => `${e.code}${e.locator === undefined ? ' (no locator)' : ` locator ${e.locator}`}`).join('; ') || 'no Exception';
  const match = report.exceptions.find(
    (e) =>
      codes.includes(e.code) &&
      (expected.locator === undefined || (expected.locator === null ? !e.locator : (e.locator ?? '').toLowerCase() === expected.locator.toLowerCase())),
  );
  const problems: string[] = [];
  if (!statuses.includes(a.status) || !match) problems.push(`${label}: expected ${want}; got HTTP ${a.status} with ${found}`);
  if (report.namespace !== OWS_11) problems.push(`${label}: ExceptionReport in namespace ${report.namespace ?? '(none)'}, expected ${OWS_11} (OWS 1.1)`);
  return problems;
}

export interface ExceptionCase {
  answer: Answer;
  expected: ExpectedException;
  label: string;
}

/**
 * Every problem of a set of error answers: status, code and locator (exceptionProblems) and, for each answer that is
 * an ExceptionReport, validity against owsExceptionReport.xsd, all reports in one xmllint run.
 */
export async function exceptionCaseProblems(cases: readonly ExceptionCase[], scratch: string): Promise<string[]> {
  const problems = cases.flatMap((c) => exceptionProblems(c.answer, c.expected, c.label));
  const reports = cases.filter((c) => parseExceptionReport(c.answer.body.toString('utf8')));
  const verdicts = await validateAll(
    reports.map((c) => c.answer.body.toString('utf8')),
    OWS_EXCEPTION_XSD,
    scratch,
  );
  verdicts.forEach((v, i) => {
    if (!v.valid) problems.push(`${reports[i].label}: the ExceptionReport is not valid against owsExceptionReport.xsd: ${v.errors}`);
  });
  return problems;
}
