// Bundle stand-in for @grpc/proto-loader: grpc-js requires it only to serve channelz and ORCA
// (server features inv does not use); inv's CRI client encodes messages from schemas generated
// at build time (src/core/cri/codec.ts), so no .proto is ever parsed at run time.
const absent = () => {
  throw new Error('@grpc/proto-loader is not part of the inv bundle');
};
export const loadSync = absent;
export const load = absent;
export const fromJSON = absent;
export const loadFileDescriptorSetFromBuffer = absent;
export const loadFileDescriptorSetFromObject = absent;
export default { loadSync, load, fromJSON, loadFileDescriptorSetFromBuffer, loadFileDescriptorSetFromObject };
