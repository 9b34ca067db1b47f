// Public surface of the node-remove core.
export {
  aliasesOf,
  decide,
  InUseIndex,
  keepReason,
  type ContainerView,
  type DecideInput,
  type ImageView,
} from './decide.js';
export { execute, type RemovalRuntime } from './execute.js';
export {
  compileAll,
  DEFAULT_SANDBOX_EXCLUSIONS,
  ExclusionError,
  sandboxImageFromStatusInfo,
} from './exclusions.js';
export { InputError, parseTimeout, readExcludeFile, readImageList, splitImages } from './inputs.js';
export { exitCodeFor, nodeRemove, type NodeRemoveOptions } from './run.js';
export { terminationSummary, writeTerminationMessage, TERMINATION_MESSAGE_LIMIT } from './summary.js';
export { parseTarget, PRUNE_ALL } from './targets.js';
export type * from './types.js';
