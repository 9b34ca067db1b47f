// Public surface of the CRI client.
export { connectCri, type ConnectOptions, type CriClient, type CriServiceName } from './client.js';
export { DEFAULT_RUNTIME_ENDPOINT, parseEndpoint } from './endpoint.js';
export { CriError, type CriErrorKind } from './errors.js';
export type * from './messages.js';
