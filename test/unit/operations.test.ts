import { describe, expect, it } from 'vitest';
import { OperationIndex } from '../../src/http/operations.js';
import type { OpenApiDocument } from '../../src/http/spec.js';

const document: OpenApiDocument = {
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  paths: {
    '/v1/things': {
      get: { operationId: 'listThings' },
      post: { operationId: 'createThing', requestBody: { content: { 'application/json': {} } } },
    },
    '/v1/things/{id}': { patch: { operationId: 'updateThing', requestBody: { $ref: '#/components/requestBodies/ThingPatch' } } },
  },
  components: { requestBodies: { ThingPatch: { content: { 'application/json': {}, 'application/merge-patch+json': {} } } } },
};

describe('OperationIndex', () => {
  it.each([
    ['listThings', []],
    ['createThing', ['application/json']],
    ['updateThing', ['application/json', 'application/merge-patch+json']],
  ])('knows the body media types of %s, following a $ref to components.requestBodies', (operationId, mediaTypes) => {
    expect(new OperationIndex(document).byOperationId(operationId)?.bodyMediaTypes).toEqual(mediaTypes);
  });
});
