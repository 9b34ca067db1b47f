// A certificate authority of its own for a local TLS server (the test registry, a token server),
// made with `openssl` (OpenSSL 3) in a folder the caller owns: the CA certificate, which a client
// must be given to trust the server (as a private registry's users are), and a server certificate
// it signs for 127.0.0.1 and localhost. Keys are P-256 (quick to make) and valid for two days.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function openssl(args, cwd) {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0)
    throw new Error(`openssl ${args[0]} failed: ${(r.error?.message ?? r.stderr ?? '').trim()}`);
}

const key = (file) => [
  '-newkey',
  'ec',
  '-pkeyopt',
  'ec_paramgen_curve:prime256v1',
  '-nodes',
  '-keyout',
  file,
];

/**
 * Makes `name`-ca.pem (the CA) and `name`.pem / `name`.key (a server certificate for 127.0.0.1
 * and localhost, signed by it) in `dir`. Returns { caFile, certFile, keyFile }.
 */
export function makeCa(dir, name = 'server') {
  const caFile = path.join(dir, `${name}-ca.pem`);
  const caKey = path.join(dir, `${name}-ca.key`);
  const certFile = path.join(dir, `${name}.pem`);
  const keyFile = path.join(dir, `${name}.key`);
  const csr = path.join(dir, `${name}.csr`);
  const ext = path.join(dir, `${name}.ext`);
  // prettier-ignore
  openssl(['req', '-x509', ...key(caKey), '-out', caFile, '-days', '2', '-subj', `/CN=inv test CA (${name})`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  openssl(['req', '-new', ...key(keyFile), '-out', csr, '-subj', '/CN=127.0.0.1'], dir);
  fs.writeFileSync(
    ext,
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n' +
      'keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  // prettier-ignore
  openssl(['x509', '-req', '-in', csr, '-CA', caFile, '-CAkey', caKey, '-CAcreateserial', '-out', certFile,
    '-days', '2', '-extfile', ext], dir);
  fs.rmSync(csr);
  fs.rmSync(ext);
  fs.rmSync(caKey); // nothing else is ever signed by it
  return { caFile, certFile, keyFile };
}
