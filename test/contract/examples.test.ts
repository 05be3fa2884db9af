import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_FILES, loadSpec } from '../../src/http/spec.js';
import { useMock } from '../helpers/mock.js';
import { answered2xx, bodyExamples, OPERATIONS, walkEveryOperation, type Exchange } from './every-operation.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** An example found in a contract, and the JSON pointer of the schema it illustrates. */
interface FoundExample {
  at: string;
  schema: string;
  value: unknown;
}

const SCHEMA_KEYWORDS = ['type', 'properties', 'items', 'allOf', 'oneOf', 'anyOf', 'enum', '$ref', 'additionalProperties', 'nullable', 'format', 'pattern'];
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Every example of a document: a media type's or a parameter's `example` and each of
 * its `examples` (checked against its `schema`), and every schema's own `example`
 * (checked against that schema), at any depth.
 */
function examplesIn(node: unknown, pointer = '#', found: FoundExample[] = []): FoundExample[] {
  if (Array.isArray(node)) {
    node.forEach((item, i) => examplesIn(item, `${pointer}/${i}`, found));
    return found;
  }
  if (typeof node !== 'object' || node === null) return found;
  const object = node as Record<string, unknown>;
  const hasSchema = typeof object.schema === 'object' && object.schema !== null;
  if (hasSchema) {
    // A media type, a parameter or a header: its examples illustrate its schema.
    if ('example' in object) found.push({ at: `${pointer}/example`, schema: `${pointer}/schema`, value: object.example });
    for (const [name, example] of Object.entries((object.examples ?? {}) as Record<string, { value?: unknown }>)) {
      found.push({ at: `${pointer}/examples/${escape(name)}`, schema: `${pointer}/schema`, value: example.value });
    }
  } else if ('example' in object && SCHEMA_KEYWORDS.some((keyword) => keyword in object)) {
    found.push({ at: `${pointer}/example`, schema: pointer, value: object.example });
  }
  for (const [key, value] of Object.entries(object)) {
    // A schema property may be called `example` or `examples`; an examples map is read above.
    if ((key === 'example' || (key === 'examples' && hasSchema)) && !pointer.endsWith('/properties')) continue;
    examplesIn(value, `${pointer}/${escape(key)}`, found);
  }
  return found;
}

describe.each(CONTRACT_FILES)('every example of %s', (file) => {
  const document = loadSpec(file).document;
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document as object, file);
  const found = examplesIn(document);

  it('is found (the walk is not empty)', () => {
    expect(found.length).toBeGreaterThan(file === 'openapi.yaml' ? 150 : 20);
  });

  it.each(found.map((example) => [example.at, example] as const))('%s parses as the schema it illustrates', (_at, example) => {
    const validate = ajv.compile({ $ref: `${file}${example.schema}` });
    expect(validate(example.value), `${JSON.stringify(example.value)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  });
});

describe('every request-body example of openapi.yaml, sent to the mock', () => {
  const mock = useMock({}, { listen: true });
  let receiver: Server;
  let exchanges: Exchange[];

  beforeAll(async () => {
    receiver = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const workspace = await mock.control('post', '/__control/workspaces').send({});
    expect(workspace.status).toBe(201);
    exchanges = await walkEveryOperation({ apiUrl: mock.url, mockUrl: mock.url, apiKey: workspace.body.apiKey as string, hookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
  });

  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
  });

  it.each(OPERATIONS.filter((op) => bodyExamples(op.operationId).length > 0).flatMap((op) => bodyExamples(op.operationId).map(({ name }) => [op.operationId, name] as const)))(
    '%s (%s) is answered with a 2xx',
    (operationId, name) => {
      const sent = exchanges.filter((exchange) => exchange.operationId === operationId && exchange.example === name);
      expect(sent.length, `${operationId} example ${name} was not sent`).toBeGreaterThan(0);
      for (const exchange of sent) expect(exchange.status, JSON.stringify(exchange.body)).toBeLessThan(300);
    },
  );

  it('reaches every operation of openapi.yaml with a 2xx', () => {
    expect(OPERATIONS.map((op) => op.operationId).filter((id) => !answered2xx(exchanges).has(id))).toEqual([]);
  });
});
