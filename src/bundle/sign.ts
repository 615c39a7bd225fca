// Ed25519 signatures of bundle manifests, through node:crypto. `keygen` writes NAME.key (PKCS#8 PEM, mode 0600)
// and NAME.pub (SPKI PEM). A signature names its key by a fingerprint (SHA-256 of the public key's DER), so a
// bundle signed by another key is told apart from a damaged signature.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { BundleError } from './manifest';

export interface SignatureBlock {
  algorithm: 'ed25519';
  keyId: string;
  signature: string;
}

export function keyId(key: KeyObject): string {
  return createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
}

/** Writes NAME.key and NAME.pub; refuses to overwrite either. Returns the key's fingerprint. */
export function generateKeyPair(name: string): { privateFile: string; publicFile: string; keyId: string } {
  const privateFile = `${name}.key`;
  const publicFile = `${name}.pub`;
  for (const f of [privateFile, publicFile]) if (existsSync(f)) throw new BundleError(`${f} exists: not overwriting a key`);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  writeFileSync(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }), { flag: 'wx' });
  return { privateFile, publicFile, keyId: keyId(publicKey) };
}

function loadKey(file: string, kind: 'private' | 'public'): KeyObject {
  let key: KeyObject;
  try {
    const pem = readFileSync(file);
    key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
  } catch (err) {
    throw new BundleError(`${file}: not a readable ${kind} key (${(err as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new BundleError(`${file}: an ${key.asymmetricKeyType} key; bundles are signed with Ed25519 (tilemirror keygen)`);
  return key;
}

export function signManifest(manifest: Buffer, keyFile: string): Buffer {
  const key = loadKey(keyFile, 'private');
  const block: SignatureBlock = { algorithm: 'ed25519', keyId: keyId(createPublicKey(key)), signature: sign(null, manifest, key).toString('base64') };
  return Buffer.from(JSON.stringify(block));
}

function parseBlock(bytes: Buffer): SignatureBlock {
  try {
    const b = JSON.parse(bytes.toString('utf8')) as Partial<SignatureBlock>;
    if (b.algorithm === 'ed25519' && typeof b.keyId === 'string' && typeof b.signature === 'string') return b as SignatureBlock;
  } catch {
    // reported below
  }
  throw new BundleError('the bundle\'s signature block is damaged');
}

/**
 * Checks the manifest's signature against the trusted public keys. Throws when the bundle is unsigned, signed by
 * a key not trusted, or the signature does not match the manifest. Returns the key id that signed.
 */
export function verifyManifest(manifest: Buffer, signature: Buffer | undefined, trustedFiles: string[]): string {
  if (!signature) throw new BundleError('the bundle is not signed, and a trusted key was given: refused');
  const block = parseBlock(signature);
  const trusted = trustedFiles.map((f) => loadKey(f, 'public'));
  const key = trusted.find((k) => keyId(k) === block.keyId);
  if (!key) {
    throw new BundleError(`the bundle is signed by key ${block.keyId}, which is not trusted (trusted: ${trusted.map(keyId).join(', ')}): refused`);
  }
  if (!verify(null, manifest, key, Buffer.from(block.signature, 'base64'))) {
    throw new BundleError(`the bundle's signature does not match its manifest (key ${block.keyId}): damaged or forged, refused`);
  }
  return block.keyId;
}

/** The key id a signature block names, or undefined for an unsigned bundle (for reporting). */
export function signerOf(signature: Buffer | undefined): string | undefined {
  return signature ? parseBlock(signature).keyId : undefined;
}
