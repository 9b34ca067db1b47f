// The Kubernetes version an API server reports on /version, read as a major and minor to compare
// against the supported range. Pure. Distributions decorate gitVersion ("v1.37.2-eks-4a1b2c3",
// "v1.37.2+k3s1", "v1.37.2-gke.1200", a pre-release "v1.38.0-alpha.1"); the leading
// major.minor is what says which Kubernetes it is. GKE's `minor` field reads "37+", so the
// fields are only the fallback for a gitVersion that does not start with one. A server run with
// --emulated-version (compatibility versions, Kubernetes 1.31 and later) serves the APIs and
// features of the minor it emulates, and says which in emulationMajor/emulationMinor: that minor
// is the one that counts.

/** What /version answers (k8s.io/apimachinery/pkg/version.Info), the fields read here. */
export interface VersionInfo {
  gitVersion?: string;
  major?: string;
  minor?: string;
  emulationMajor?: string;
  emulationMinor?: string;
}

export interface KubeVersion {
  major: number;
  minor: number;
  /** Absent when only the major and minor fields were readable. */
  patch?: number;
  /** What the server said, as it said it (gitVersion, or "major.minor"; "… emulating 1.34"). */
  text: string;
  /** The binary's minor when the server emulates an older one (major and minor are the emulated). */
  binary?: { major: number; minor: number };
}

const GIT_VERSION = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+.].*)?$/;
const FIELD = /^(\d+)\D*$/;

/** The server's version, or undefined when neither gitVersion nor major/minor can be read. */
export function parseKubeVersion(info: VersionInfo | string | undefined): KubeVersion | undefined {
  const v: VersionInfo = typeof info === 'string' ? { gitVersion: info } : (info ?? {});
  const binary = binaryVersion(v);
  const eMajor = FIELD.exec(v.emulationMajor?.trim() ?? '');
  const eMinor = FIELD.exec(v.emulationMinor?.trim() ?? '');
  if (!binary || !eMajor || !eMinor) return binary;
  const emulated = { major: Number(eMajor[1]), minor: Number(eMinor[1]) };
  if (compareMinor(emulated, binary) === 0) return binary;
  return {
    ...emulated,
    text: `${binary.text} emulating ${emulated.major}.${emulated.minor}`,
    binary: { major: binary.major, minor: binary.minor },
  };
}

function binaryVersion(v: VersionInfo): KubeVersion | undefined {
  const git = v.gitVersion?.trim() ?? '';
  const m = GIT_VERSION.exec(git);
  if (m)
    return {
      major: Number(m[1]),
      minor: Number(m[2]),
      ...(m[3] !== undefined ? { patch: Number(m[3]) } : {}),
      text: git,
    };
  const major = FIELD.exec(v.major?.trim() ?? '');
  const minor = FIELD.exec(v.minor?.trim() ?? '');
  if (major && minor)
    return { major: Number(major[1]), minor: Number(minor[1]), text: git || `${major[1]}.${minor[1]}` };
  return undefined;
}

/** Minor versions compared: negative when `a` is older than `b`, 0 when the same minor. */
export const compareMinor = (
  a: { major: number; minor: number },
  b: { major: number; minor: number },
): number => a.major - b.major || a.minor - b.minor;
