// One capabilities document fetched as text (WMTS and WMS sources): HTTP 200, the whole body, any transport
// encoding undone; the client's retries apply.

import { decodeBody, type UpstreamClient } from '../../upstream/client';

export async function fetchXml(client: UpstreamClient, url: string, signal?: AbortSignal): Promise<{ xml: string; url: string }> {
  const docUrl = client.resolve(url);
  const xml = await client.request<string>(
    docUrl,
    (res) => {
      if (res.status !== 200) return { ok: false, outcome: { kind: 'status', status: res.status } };
      const declared = res.headers['content-length'];
      if (declared !== undefined && Number(declared) !== res.body.length) return { ok: false, outcome: { kind: 'invalid', message: `body of ${res.body.length} bytes, Content-Length says ${declared}` } };
      try {
        return { ok: true, value: decodeBody(res).toString('utf8') };
      } catch (err) {
        return { ok: false, outcome: { kind: 'invalid', message: (err as Error).message } };
      }
    },
    signal,
  );
  return { xml, url: docUrl };
}
