// Public surface of the node-remove core.
export {
  aliasesOf,
  decide,
  InUseIndex,
  keepReason,
  type ContainerView,
  type DecideInput,
  type ImageUser,
  type ImageView,
  type SandboxView,
} from './remove/decide.js';
export { untaggedExclusionWarnings } from './remove/exclusion-warnings.js';
export {
  NO_ID_REASON,
  runtimeAnswerWarnings,
  unattributedContainers,
  unattributedReason,
  vetImages,
} from './remove/runtime-answers.js';
export { execute, type RemovalRuntime } from './remove/execute.js';
export { compileAll, DEFAULT_SANDBOX_EXCLUSIONS, ExclusionError } from './remove/exclusions.js';
export {
  assessSandbox,
  isPauseLike,
  sandboxImageFromPodSandboxInfo,
  sandboxImageFromStatusInfo,
  type SandboxFacts,
  type SandboxGuard,
} from './remove/sandbox.js';
export { applyScope } from './remove/scoped.js';
export { compileScope, type Scope } from '../refs/scope.js';
export { applyKeepNewest, createdFromInfo, MAX_KEEP_NEWEST, parseKeepNewest } from './remove/keep-newest.js';
export { SandboxReader, type SandboxRead } from './remove/sandbox-reader.js';
export {
  InputError,
  parseTimeout,
  readExcludeFile,
  readImageList,
  readProtectedDir,
  splitImages,
} from './inputs.js';
export { exitCodeFor, nodeRemove, type NodeRemoveOptions } from './run.js';
export { terminationSummary, writeTerminationMessage, TERMINATION_MESSAGE_LIMIT } from './summary.js';
export { MIN_ID_PREFIX, parseTarget, PRUNE_ALL } from './targets.js';
export type * from './types.js';
