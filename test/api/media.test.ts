import { describe, expect, it } from 'vitest';
import { MEDIA_MAX_BYTES } from '../../src/api/media/service.js';
import { expectApiError, expectStatus, useMock } from '../helpers/mock.js';

// URLs are built from the Host the request came to: names the server was told to answer.
const mock = useMock({ allowedHosts: ['mock.test', 'gateway.internal'] });

/** Path and query of an absolute URL the mock handed out, to send through supertest. */
function local(url: string): string {
  const parsed = new URL(url, 'http://relative.invalid');
  return `${parsed.pathname}${parsed.search}`;
}

async function presign(body: object = { filename: 'spring blend.jpg', contentType: 'image/jpeg' }, apiKey?: string) {
  const res = await mock.call('post', '/v1/media/presign', apiKey).send(body);
  expectStatus(res, 200);
  return res.body as { uploadUrl: string; publicUrl: string; key: string; expiresIn: number };
}

function put(uploadUrl: string, bytes: Buffer, contentType?: string) {
  const req = mock.call('put', local(uploadUrl), null);
  return (contentType === undefined ? req : req.set('Content-Type', contentType)).send(bytes);
}

/** GET of a public URL; the body of a 200 is the raw bytes, an error's the JSON envelope. */
function fetchPublic(publicUrl: string) {
  return mock.call('get', local(publicUrl), null).buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => {
      const bytes = Buffer.concat(chunks);
      done(null, res.statusCode === 200 ? bytes : JSON.parse(bytes.toString('utf8')));
    });
  });
}

/** Supertest serves each request on a port of its own: compare URLs by path. */
const pathOf = (url: string) => new URL(url).pathname;

async function newWorkspaceKey(): Promise<string> {
  const { body } = await mock.control('post', '/__control/workspaces').send({ fixtures: false });
  return body.apiKey as string;
}

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9]);

describe('POST /v1/media/presign', () => {
  it('answers URLs on the mock itself, built from the request\'s Host, and an opaque key', async () => {
    const res = await mock.call('post', '/v1/media/presign').set('Host', 'mock.test:9999').send({ filename: '../../etc/passwd', contentType: 'image/png' });
    expectStatus(res, 200);
    const { uploadUrl, publicUrl, key, expiresIn } = res.body;
    expect(key).toMatch(/^[0-9a-f]{32}\.png$/);
    expect(uploadUrl).toMatch(new RegExp(`^http://mock\\.test:9999/__uploads/${key}\\?token=[0-9a-f]{32}$`));
    expect(publicUrl).toBe(`http://mock.test:9999/__media/${key}`);
    expect(expiresIn).toBe(900);
    // The filename is metadata: nothing of it reaches a URL.
    expect(`${uploadUrl}${publicUrl}`).not.toMatch(/passwd|\.\./);
  });

  it('gives every presign its own key', async () => {
    const a = await presign();
    const b = await presign();
    expect(a.key).not.toBe(b.key);
  });

  it.each([
    [{ filename: 'a.jpg' }, 'contentType'],
    [{ filename: '', contentType: 'image/jpeg' }, 'filename'],
    [{ filename: 'a.jpg', contentType: 'jpeg' }, 'contentType'],
  ])('answers 400 VALIDATION_ERROR for %j', async (body, param) => {
    expectApiError(await mock.call('post', '/v1/media/presign').send(body), 400, 'VALIDATION_ERROR', param);
  });
});

describe('PUT uploadUrl, then GET publicUrl', () => {
  it('serves the uploaded bytes with their type, and lists the asset in GET /v1/media', async () => {
    const key = await newWorkspaceKey();
    const { uploadUrl, publicUrl } = await presign(undefined, key);
    expectStatus(await put(uploadUrl, JPEG, 'image/jpeg'), 200);

    const served = await fetchPublic(publicUrl);
    expectStatus(served, 200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(served.body as Buffer, JPEG)).toBe(0);

    const list = await mock.call('get', '/v1/media?include=total', key);
    expectStatus(list, 200);
    expect(list.body).toEqual({
      data: [{ id: expect.any(String), url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/__media\//), contentType: 'image/jpeg', sizeBytes: JPEG.length }],
      nextCursor: null,
      hasMore: false,
      total: 1,
    });
    expect(pathOf(list.body.data[0].url)).toBe(pathOf(publicUrl));
  });

  it('accepts the declared type in another case or with parameters', async () => {
    const { uploadUrl } = await presign({ filename: 'clip.mp4', contentType: 'video/mp4' });
    expectStatus(await put(uploadUrl, JPEG, 'Video/MP4; codecs="avc1"'), 200);
  });

  it('replaces the file on a second PUT before the URL expires', async () => {
    const { uploadUrl, publicUrl } = await presign();
    await put(uploadUrl, JPEG, 'image/jpeg');
    const second = Buffer.concat([JPEG, JPEG]);
    expectStatus(await put(uploadUrl, second, 'image/jpeg'), 200);
    expect(Buffer.compare((await fetchPublic(publicUrl)).body as Buffer, second)).toBe(0);
  });

  describe('when the Content-Type is not the declared one', () => {
    it('answers 415 UNSUPPORTED_MEDIA_TYPE naming Content-Type and keeps nothing', async () => {
      const key = await newWorkspaceKey();
      const { uploadUrl, publicUrl } = await presign(undefined, key);
      const res = await put(uploadUrl, JPEG, 'image/png');
      expectApiError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
      expect(res.body.error.details).toEqual({ expected: 'image/jpeg', received: 'image/png' });
      expectApiError(await put(uploadUrl, JPEG), 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
      expectApiError(await fetchPublic(publicUrl), 404, 'NOT_FOUND');
      expect((await mock.call('get', '/v1/media', key)).body.data).toEqual([]);
    });
  });

  describe('when the upload URL expired on the virtual clock', () => {
    it('answers 403 UPLOAD_URL_EXPIRED after 900 s, and takes the file at 899 s', async () => {
      const key = await newWorkspaceKey();
      const late = await presign(undefined, key);
      const early = await presign(undefined, key);
      await mock.control('post', '/__control/clock/advance', key).send({ by: 'PT899S' });
      expectStatus(await put(early.uploadUrl, JPEG, 'image/jpeg'), 200);
      await mock.control('post', '/__control/clock/advance', key).send({ by: 'PT1S' });
      expectApiError(await put(late.uploadUrl, JPEG, 'image/jpeg'), 403, 'UPLOAD_URL_EXPIRED');
      expectApiError(await fetchPublic(late.publicUrl), 404, 'NOT_FOUND');
    });
  });

  describe('when the file is larger than 50 MB', () => {
    it('answers 413 PAYLOAD_TOO_LARGE', async () => {
      const { uploadUrl, publicUrl } = await presign();
      const res = await put(uploadUrl, Buffer.alloc(MEDIA_MAX_BYTES + 1), 'image/jpeg');
      expectApiError(res, 413, 'PAYLOAD_TOO_LARGE');
      expect(res.body.error.details).toEqual({ limit: 50 * 1024 * 1024 });
      expectApiError(await fetchPublic(publicUrl), 404, 'NOT_FOUND');
    });
  });

  describe('when the body is empty', () => {
    it('answers 400 VALIDATION_ERROR', async () => {
      const { uploadUrl } = await presign();
      expectApiError(await put(uploadUrl, Buffer.alloc(0), 'image/jpeg'), 400, 'VALIDATION_ERROR', 'body');
    });
  });

  describe('when the token is missing or altered', () => {
    it('answers 403 UPLOAD_URL_INVALID: knowing the public URL is not enough to upload', async () => {
      const { uploadUrl, key } = await presign();
      expectApiError(await put(`/__uploads/${key}`, JPEG, 'image/jpeg'), 403, 'UPLOAD_URL_INVALID', 'token');
      expectApiError(await put(uploadUrl.replace(/token=./, 'token=x'), JPEG, 'image/jpeg'), 403, 'UPLOAD_URL_INVALID', 'token');
    });
  });

  describe('when the key tries to leave the upload store', () => {
    it.each([
      ['/__uploads/..%2F..%2Fetc%2Fpasswd?token=0', 'put'],
      ['/__uploads/%2E%2E?token=0', 'put'],
      ['/__media/..%2Fpackage.json', 'get'],
      ['/__media/%2e%2e%5c%2e%2e%5cwindows', 'get'],
    ] as const)('refuses %s with 400 VALIDATION_ERROR naming the key', async (path, method) => {
      const req = mock.call(method, path, null);
      expectApiError(method === 'put' ? await req.set('Content-Type', 'image/jpeg').send(JPEG) : await req, 400, 'VALIDATION_ERROR', 'key');
    });

    it('never serves a file for a path of several segments', async () => {
      const res = await mock.call('get', '/__media/x/../../package.json', null);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    });

    it('answers 404 for a well-formed key nobody issued', async () => {
      expectApiError(await mock.call('get', `/__media/${'0'.repeat(32)}.jpg`, null), 404, 'NOT_FOUND');
    });
  });
});

describe('GET /v1/media', () => {
  it('lists only uploaded files, newest upload first, and pages under the shared rules', async () => {
    const key = await newWorkspaceKey();
    const urls: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { uploadUrl, publicUrl } = await presign({ filename: `photo-${i}.jpg`, contentType: 'image/jpeg' }, key);
      await put(uploadUrl, JPEG, 'image/jpeg');
      urls.push(publicUrl);
      await mock.control('post', '/__control/clock/advance', key).send({ by: 'PT1M' });
    }
    await presign(undefined, key); // presigned, never uploaded: not an asset

    const first = await mock.call('get', '/v1/media?limit=2&include=total', key);
    expectStatus(first, 200);
    expect(first.body).toMatchObject({ hasMore: true, total: 3 });
    const second = await mock.call('get', `/v1/media?limit=2&include=total&cursor=${encodeURIComponent(first.body.nextCursor)}`, key);
    expect(second.body).toMatchObject({ hasMore: false, nextCursor: null, total: 3 });
    const listed = [...first.body.data, ...second.body.data].map((asset: { url: string }) => pathOf(asset.url));
    expect(listed).toEqual(urls.map(pathOf).reverse());

    expectApiError(await mock.call('get', `/v1/media?limit=3&cursor=${encodeURIComponent(first.body.nextCursor)}`, key), 400, 'INVALID_CURSOR', 'cursor');
    expectApiError(await mock.call('get', '/v1/media?include=facets', key), 400, 'VALIDATION_ERROR', 'include');
    expectApiError(await mock.call('get', '/v1/media?limit=101', key), 400, 'VALIDATION_ERROR', 'limit');
  });

  it('filters on the upload time with since (inclusive) and until (exclusive), by the shared list rules', async () => {
    const key = await newWorkspaceKey();
    const uploaded: Array<{ at: string; path: string }> = [];
    for (let i = 0; i < 3; i++) {
      const { uploadUrl, publicUrl } = await presign({ filename: `photo-${i}.jpg`, contentType: 'image/jpeg' }, key);
      await put(uploadUrl, JPEG, 'image/jpeg');
      uploaded.push({ at: (await mock.control('get', '/__control/clock', key)).body.now, path: pathOf(publicUrl) });
      await mock.control('post', '/__control/clock/advance', key).send({ by: 'PT1H' });
    }
    const [first, second, third] = uploaded as [{ at: string; path: string }, { at: string; path: string }, { at: string; path: string }];
    const listed = async (query: string) => {
      const res = await mock.call('get', `/v1/media?include=total&${query}`, key);
      expectStatus(res, 200);
      return { paths: res.body.data.map((asset: { url: string }) => pathOf(asset.url)), total: res.body.total };
    };
    expect(await listed(`since=${encodeURIComponent(second.at)}`)).toEqual({ paths: [third.path, second.path], total: 2 });
    expect(await listed(`until=${encodeURIComponent(second.at)}`)).toEqual({ paths: [first.path], total: 1 });
    expect(await listed(`since=${encodeURIComponent(first.at)}&until=${encodeURIComponent(third.at)}`)).toEqual({ paths: [second.path, first.path], total: 2 });
    // An offset is the same instant: + travels as %2B.
    const offset = new Date(Date.parse(third.at) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await listed(`since=${encodeURIComponent(offset)}`)).toEqual({ paths: [third.path], total: 1 });
  });

  it.each([
    ['since not before until', `since=${encodeURIComponent('2026-03-02T10:00:00Z')}&until=${encodeURIComponent('2026-03-02T09:00:00Z')}`, 'INVALID_RANGE'],
    ['a date alone', 'since=2026-03-02', 'VALIDATION_ERROR'],
    ['a time without a zone', `until=${encodeURIComponent('2026-03-02T09:00:00')}`, 'VALIDATION_ERROR'],
  ])('answers 400 for %s', async (_case, query, code) => {
    const key = await newWorkspaceKey();
    const res = await mock.call('get', `/v1/media?${query}`, key);
    expectApiError(res, 400, code, query.startsWith('until') ? 'until' : 'since');
  });

  it('builds each url from the Host the list was asked on', async () => {
    const key = await newWorkspaceKey();
    const { uploadUrl, key: mediaKey } = await presign(undefined, key);
    await put(uploadUrl, JPEG, 'image/jpeg');
    const res = await mock.call('get', '/v1/media', key).set('Host', 'gateway.internal:8080');
    expect(res.body.data[0].url).toBe(`http://gateway.internal:8080/__media/${mediaKey}`);
  });

  it('does not list another workspace\'s media', async () => {
    const a = await newWorkspaceKey();
    const b = await newWorkspaceKey();
    const { uploadUrl } = await presign(undefined, a);
    await put(uploadUrl, JPEG, 'image/jpeg');
    expect((await mock.call('get', '/v1/media', b)).body.data).toEqual([]);
  });
});
