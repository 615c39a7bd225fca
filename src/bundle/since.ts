// `--since`: the versions the other side has. Either the JSON `status --versions` wrote there (carried back on
// media: no handshake), or versions typed in as KIND/ID=VERSION. Stores not named are sent whole.

import { existsSync, readFileSync } from 'node:fs';
import { VERSIONS_FORMAT } from '../store/bundle/content-version';
import { BundleError } from './manifest';

const TYPED = /^([a-z]+\/[^=]+)=([0-9a-f]{8,64})$/;

export function parseSince(values: string[]): Map<string, string> {
  const since = new Map<string, string>();
  for (const v of values) {
    const typed = TYPED.exec(v);
    if (typed) {
      since.set(typed[1], typed[2]);
      continue;
    }
    if (!existsSync(v)) throw new BundleError(`--since ${v}: neither a versions file (status --versions) nor KIND/ID=VERSION`);
    let doc: { format?: unknown; stores?: unknown };
    try {
      doc = JSON.parse(readFileSync(v, 'utf8')) as typeof doc;
    } catch (err) {
      throw new BundleError(`--since ${v}: not JSON (${(err as Error).message})`);
    }
    if (doc.format !== VERSIONS_FORMAT || typeof doc.stores !== 'object' || doc.stores === null) {
      throw new BundleError(`--since ${v}: not a versions file (format "${VERSIONS_FORMAT}" with "stores", as status --versions writes)`);
    }
    for (const [name, version] of Object.entries(doc.stores)) {
      if (typeof version !== 'string') throw new BundleError(`--since ${v}: stores.${name} is not a version string`);
      since.set(name, version);
    }
  }
  return since;
}
