// The digest the erase controller records for each input it hands a worker, and the worker checks
// each mounted file against (`inv node-remove --imagelist-sha256`…), computed by one function on
// both sides: hex SHA-256 of the bytes (a string as its UTF-8 bytes, as the ConfigMap stores it).
import { createHash } from 'node:crypto';

export const sha256Hex = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');
