// A ValidatingAdmissionPolicy that denies some writes in one namespace, for tests of how the
// controllers react when the API refuses them. Policies load asynchronously, so the helper waits
// until a dry-run probe is refused with the policy's message before it returns.
import * as k8s from '@kubernetes/client-node';
import { waitFor } from '../cri.js';

export interface DenyPolicy {
  name: string;
  namespace: string;
  rule: { apiGroups: string[]; operations: string[]; resources: string[] };
  /** CEL: the object is admitted when this is true. */
  expression: string;
  message: string;
  /** A dry-run write the policy must refuse (with `message`) once it is enforced. */
  probe: () => Promise<unknown>;
}

/** Creates the policy and its binding, waits until enforced; returns the cleanup. */
export async function denyInNamespace(kc: k8s.KubeConfig, p: DenyPolicy): Promise<() => Promise<void>> {
  const adm = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
  await adm.createValidatingAdmissionPolicy({
    body: {
      metadata: { name: p.name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ ...p.rule, apiVersions: ['*'] }] },
        validations: [{ expression: p.expression, message: p.message }],
      },
    },
  });
  await adm.createValidatingAdmissionPolicyBinding({
    body: {
      metadata: { name: p.name },
      spec: {
        policyName: p.name,
        validationActions: ['Deny'],
        matchResources: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': p.namespace } },
        },
      },
    },
  });
  const cleanup = async () => {
    await adm.deleteValidatingAdmissionPolicyBinding({ name: p.name }).catch(() => undefined);
    await adm.deleteValidatingAdmissionPolicy({ name: p.name }).catch(() => undefined);
  };
  try {
    await waitFor(`policy ${p.name} enforced`, () =>
      p.probe().then(
        () => false,
        (e: Error) => e.message.includes(p.message),
      ),
    );
  } catch (e) {
    await cleanup();
    throw e;
  }
  return cleanup;
}
