/**
 * Container image references a managed MCP server may run (docs/adr/0008-mcp-servers.md).
 *
 * The grammar is the one the container runtime parses (distribution/reference): a registry
 * host, a repository path of lowercase components, then a tag, a digest, or both. On top of
 * the grammar the platform asks for two things a cluster operator expects:
 * - registry-qualified: the first component names a registry (it has a `.` or a `:`, or is
 *   `localhost`), so `nginx:1.27` does not silently mean Docker Hub;
 * - pinned: a tag or a digest is present, so no implicit `latest`.
 */

export type ImageRule =
  'characters' | 'registry' | 'repository' | 'tag_or_digest' | 'tag' | 'digest' | 'name_too_long';

export interface ImageProblem {
  rule: ImageRule;
  message: string;
}

export interface ImageReference {
  registry: string;
  repository: string;
  tag?: string;
  digest?: string;
}

const MESSAGES: Record<ImageRule, string> = {
  characters: 'image must not contain whitespace or control characters',
  registry:
    'image must start with its registry host, like ghcr.io/acme/server:1.0 or registry.example.com:5000/server:1.0',
  repository:
    'image repository must be lowercase letters and digits separated by ".", "_", "__" or "-", in "/"-separated components',
  tag_or_digest: 'image must be pinned with a tag (:1.0) or a digest (@sha256:...)',
  tag: 'image tag must be 1 to 128 letters, digits, "_", "." or "-", not starting with "." or "-"',
  digest: 'image digest must be sha256:<64 hex> or sha512:<128 hex>',
  name_too_long: 'image name (registry and repository) must be at most 255 characters',
};

function problem(rule: ImageRule): ImageProblem {
  return { rule, message: `${MESSAGES[rule]} (rule: ${rule})` };
}

const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const REGISTRY = new RegExp(
  `^(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:]+\\])(?::[0-9]{1,5})?$`,
);
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^(?:sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

/** Parses `image`; a problem names the first broken rule. */
export function parseImageReference(image: string): ImageReference | ImageProblem {
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(image)) return problem('characters');
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return problem('digest');
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return problem('tag');
  }
  const slash = rest.indexOf('/');
  if (slash < 0) return problem('registry');
  const registry = rest.slice(0, slash);
  const repository = rest.slice(slash + 1);
  const qualified = registry.includes('.') || registry.includes(':') || registry === 'localhost';
  if (!qualified || !REGISTRY.test(registry)) return problem('registry');
  if (!repository.split('/').every((c) => PATH_COMPONENT.test(c))) return problem('repository');
  if (rest.length > 255) return problem('name_too_long');
  if (tag === undefined && digest === undefined) return problem('tag_or_digest');
  return {
    registry,
    repository,
    ...(tag !== undefined ? { tag } : {}),
    ...(digest !== undefined ? { digest } : {}),
  };
}

export function isImageProblem(r: ImageReference | ImageProblem): r is ImageProblem {
  return 'rule' in r;
}
