import { HTTP_METHODS, type OpenApiDocument } from './spec.js';
import { decodeOrKeep } from '../lib/uri.js';

/** One operation of a contract, as the router needs it. */
export interface Operation {
  operationId: string;
  method: string;
  /** The OpenAPI path template, `/v1/posts/{id}`. */
  path: string;
  tags: string[];
  summary: string;
  /**
   * Who may call it on a server with a control token (control.yaml's `x-access`; the API's
   * operations have none): `open` needs no credential, `workspace` the token or a key of the
   * workspace it acts on, `server` the token alone.
   */
  access?: ControlAccess;
  /** Media types of the declared request body (`application/json`); empty when it takes none, and a body sent anyway is not read. */
  bodyMediaTypes: readonly string[];
}

export const CONTROL_ACCESS = ['open', 'workspace', 'server'] as const;
export type ControlAccess = (typeof CONTROL_ACCESS)[number];

interface Template {
  pattern: RegExp;
  /** Its path's segments (`/v1/posts/{id}`: 4, the empty one before the first slash included): only a path of as many can match. */
  segments: number;
  paramNames: string[];
  /** Literal segments rank first, so `/v1/comments/like` beats a `{id}` template. */
  literalSegments: number;
  byMethod: Map<string, Operation>;
}

interface RequestBody {
  $ref?: string;
  content?: Record<string, unknown>;
}

export type OperationMatch =
  | { kind: 'found'; operation: Operation; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

/** `path.split('/').length`, without the array. */
function segmentCount(path: string): number {
  let count = 1;
  for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) count++;
  return count;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Every operation of a contract, matched by method and path. The server routes by
 * this index, so every operation in the document has a route (implemented or 501)
 * and every other path is a 404 in the envelope.
 */
export class OperationIndex {
  readonly operations: Operation[] = [];
  private readonly templates: Template[] = [];
  /** The templates by their number of segments, each list in the order of `templates`: a request tries only those of its own path's count. */
  private readonly bySegments = new Map<number, Template[]>();

  constructor(document: OpenApiDocument) {
    for (const [path, item] of Object.entries(document.paths)) {
      const paramNames: string[] = [];
      const segments = path.split('/');
      const pattern = segments
        .map((segment) => {
          const param = /^\{(\w+)\}$/.exec(segment);
          if (!param) return escapeRegExp(segment);
          paramNames.push(param[1] as string);
          return '([^/]+)';
        })
        .join('/');
      const template: Template = {
        // No optional trailing slash: `/v1/posts/` is `/v1/posts/{id}` with an empty id,
        // and an empty segment names nothing, so it is a 404 like any unknown path rather
        // than the list (or, under a parameter, a handler called with an empty id).
        pattern: new RegExp(`^${pattern}$`),
        segments: segments.length,
        paramNames,
        literalSegments: segments.length - paramNames.length,
        byMethod: new Map(),
      };
      for (const method of HTTP_METHODS) {
        const op = item[method] as { operationId?: string; tags?: string[]; summary?: string; requestBody?: RequestBody; 'x-access'?: string } | undefined;
        if (!op) continue;
        if (!op.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
        const body = op.requestBody?.$ref ? (document.components?.requestBodies?.[op.requestBody.$ref.split('/').pop() ?? ''] as RequestBody | undefined) : op.requestBody;
        const access = op['x-access'];
        if (access !== undefined && !(CONTROL_ACCESS as readonly string[]).includes(access)) throw new Error(`${op.operationId}: x-access '${access}' is not one of ${CONTROL_ACCESS.join(', ')}`);
        const operation: Operation = {
          operationId: op.operationId,
          method: method.toUpperCase(),
          path,
          tags: op.tags ?? [],
          summary: op.summary ?? '',
          ...(access !== undefined && { access: access as ControlAccess }),
          bodyMediaTypes: Object.keys(body?.content ?? {}),
        };
        template.byMethod.set(operation.method, operation);
        this.operations.push(operation);
      }
      this.templates.push(template);
    }
    this.templates.sort((a, b) => b.literalSegments - a.literalSegments);
    for (const template of this.templates) {
      const list = this.bySegments.get(template.segments);
      if (list) list.push(template);
      else this.bySegments.set(template.segments, [template]);
    }
  }

  /**
   * The operation for a method and path, with its decoded parameters. O(templates of the
   * path's segment count): a parameter never holds a slash, so no other template can match
   * (trying all of them was a regular expression per path of the contract on every request).
   */
  match(method: string, path: string): OperationMatch {
    let allowed: Set<string> | undefined;
    for (const template of this.bySegments.get(segmentCount(path)) ?? []) {
      const found = template.pattern.exec(path);
      if (!found) continue;
      const operation = template.byMethod.get(method) ?? (method === 'HEAD' ? template.byMethod.get('GET') : undefined);
      if (operation) {
        const params: Record<string, string> = {};
        template.paramNames.forEach((name, i) => {
          params[name] = decodeOrKeep(found[i + 1] as string);
        });
        return { kind: 'found', operation, params };
      }
      allowed ??= new Set();
      for (const m of template.byMethod.keys()) allowed.add(m);
    }
    return allowed !== undefined && allowed.size > 0 ? { kind: 'method-not-allowed', allowed: [...allowed] } : { kind: 'not-found' };
  }

  byOperationId(operationId: string): Operation | undefined {
    return this.operations.find((operation) => operation.operationId === operationId);
  }
}
